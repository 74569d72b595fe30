package plan

import "github.com/loamdb/loam/types"

// Short constructors of the datums the binder's built-in functions return.
func dText(s string) types.Datum { return types.Datum{T: types.TText, S: s} }
func dInt(v int64) types.Datum   { return types.Datum{T: types.TInt4, I: v} }
func dBool(v bool) types.Datum   { return types.BoolDatum(v) }
