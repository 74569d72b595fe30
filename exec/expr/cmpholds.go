package expr

// Holds reports whether a three-way comparison result c (negative, zero,
// positive) satisfies the operator: for kernels outside this package that
// compare once per dictionary entry.
func (o CmpOp) Holds(c int) bool { return o.holds(c) }
