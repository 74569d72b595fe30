package expr

import (
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// jsonKindNames name a jsonb value's kind as PostgreSQL's casts out of
// jsonb word it ("cannot cast jsonb string to type numeric").
var jsonKindNames = map[byte]string{'o': "object", 'a': "array", 's': "string", 'n': "numeric", 't': "boolean", 'f': "boolean", 'z': "null"}

// castJSONBScalar is jsonb's cast to a number or boolean: the value must
// be a JSON number (a boolean for bool), which then converts as numeric
// does (1.5::jsonb::int rounds to 2). json has no such casts.
func castJSONBScalar(d types.Datum, to types.T, loc *time.Location) (types.Datum, error) {
	v, err := jsonOf(d)
	if err != nil {
		return types.Datum{}, err
	}
	want := byte('n')
	if to.Kind == types.Bool {
		want = 't'
	}
	got := v.Kind
	if got == 'f' {
		got = 't'
	}
	if got != want {
		return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", jsonKindNames[v.Kind], types.Of(to.Kind))
	}
	if to.Kind == types.Bool {
		return types.BoolDatum(v.Kind == 't'), nil
	}
	n, err := types.ParseText(types.TNumeric, v.Raw, loc)
	if err != nil {
		return types.Datum{}, err
	}
	if to.Kind == types.Numeric {
		return CastDatum(n, to, loc)
	}
	if to.Kind == types.Float4 || to.Kind == types.Float8 {
		// float8in reads the number's text, so an exponent out of
		// float range fails as it does there.
		return types.ParseText(to, v.Raw, loc)
	}
	return CastDatum(n, to, loc)
}
