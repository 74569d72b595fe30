package meta

import "errors"

// LoamTypesProperty is the Iceberg table property every table Loam
// creates carries (exec/ice.TypesProperty: the SQL type of each column).
const LoamTypesProperty = "loam.column-types"

// ExternalWriter decides whether outside engines write a table, from its
// settings as TableSettings returned them (ts, err) and its Iceberg
// properties: its settings say WriterExternal, or it has no settings row
// and is not one Loam created (a table an outside engine created through
// the catalog). A Loam table is briefly without its row while a DROP
// inside a transaction block is rolled back; its properties keep it
// Loam's. An error other than ErrNotFound is returned as it is.
func ExternalWriter(ts TableSettings, err error, props map[string]string) (bool, error) {
	switch {
	case err == nil:
		return ts.Writer == WriterExternal, nil
	case errors.Is(err, ErrNotFound):
		_, loams := props[LoamTypesProperty]
		return !loams, nil
	default:
		return false, err
	}
}
