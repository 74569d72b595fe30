package pgerr

// SQLSTATEs of CHECK and FOREIGN KEY constraints.
const (
	CheckViolation    = "23514"
	InvalidForeignKey = "42830"
	DuplicateObject   = "42710"
)
