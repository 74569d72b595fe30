package pgerr

// SQLSTATEs of sequences and identity columns.
const (
	ObjectNotInPrerequisiteState   = "55000" // currval before nextval
	SequenceGeneratorLimitExceeded = "2200H" // nextval past MAXVALUE without CYCLE
	GeneratedAlways                = "428C9" // a value for a GENERATED ALWAYS column
)
