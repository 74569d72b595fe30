package difffuzz

// DefaultGates is what the fixed-seed run generates: the gated shapes
// whose Loam bug is fixed (each has its record in
// regress/slt/testdata/difffuzz_found.slt or difffuzz.slt), on; the
// others off until fixed.
func DefaultGates() Gates {
	return Gates{
		SameNameGroupBy:    true,
		FilterDistinctAgg:  true,
		QuantifiedSubquery: true,
		EmptyAggFatal:      true,
		IntervalColumn:     true,
		WindowAvgNumeric:   true,
		UnknownAggArg:      true,
		ConstGroupKey:      true,
		UnknownUnion:       true,
	}
}
