package exec

// RunDetailer is an operator that has something to say, once run, in
// EXPLAIN ANALYZE under its node: the lines after the plan's own (a
// MERGE's Tuples line, say).
type RunDetailer interface {
	RunDetails() []string
}
