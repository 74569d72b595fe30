package tpchgen

import (
	_ "unsafe" // go:linkname

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// go-tpc's port takes a whole scale factor only; dbgen's own rule for a
// scale below 1 (driver.c) scales the base row count of each table and
// keeps the integer scale at 1. The table definitions are unexported, so
// they are reached by name: tableDef mirrors go-tpc v1.0.7's tDef field for
// field (bench/query/go.mod pins that version; TestFraction checks the row
// counts this gives).

type tableDef struct {
	name    string
	comment string
	base    int64
	loader  dbgen.Loader
	genSeed func(dbgen.Table, int64)
	child   dbgen.Table
	vTotal  int64
}

//go:linkname tableDefs github.com/pingcap/go-tpc/tpch/dbgen.tDefs
var tableDefs []tableDef

//go:linkname initOrder github.com/pingcap/go-tpc/tpch/dbgen.initOrder
func initOrder()

//go:linkname initLineItem github.com/pingcap/go-tpc/tpch/dbgen.initLineItem
func initLineItem()

// scaleBelowOne applies dbgen's rule after InitDbGen(1), then recomputes
// what InitDbGen derived from the bases (the customer and part key ranges).
func scaleBelowOne(sf float64) {
	for t := dbgen.TPart; t <= dbgen.TPartPsupp; t++ {
		tableDefs[t].base = scaledBase(tableDefs[t].base, sf)
	}
	initOrder()
	initLineItem()
}
