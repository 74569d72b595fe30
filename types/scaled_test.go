package types

import "testing"

// TestScaledDecimal checks the fast numeric(p,s) parse against the exact
// path (ParseDec then Fit), which PostgreSQL's answers test elsewhere.
func TestScaledDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		p, s int32
		fast bool
	}{
		{"1", 15, 2, true}, {"-1.5", 15, 2, true}, {"0.33333333333333333333", 15, 2, true},
		{"0.005", 15, 2, true}, {"-0.005", 15, 2, true}, {"-0.004", 15, 2, true},
		{"2.675", 15, 2, true}, {"+7.", 15, 2, true}, {".5", 15, 2, true},
		{"9999999999999.994", 15, 2, true}, {"9999999999999.995", 15, 2, true},
		{"123456789012345678901234567890", 15, 2, false}, {"1e3", 15, 2, false},
		{" 1", 15, 2, false}, {"NaN", 15, 2, false}, {".", 15, 2, false}, {"-", 15, 2, false},
		{"1.2.3", 15, 2, false}, {"12", 5, 0, true}, {"0.0000000000000000000000000001", 15, 2, true},
	} {
		v, ok := ScaledDecimal([]byte(tc.in), tc.s)
		if ok != tc.fast {
			t.Errorf("%q: fast path %v, want %v", tc.in, ok, tc.fast)
			continue
		}
		want, err := ParseText(T{Kind: Numeric, Width: tc.p, Scale: tc.s}, tc.in, nil)
		if !ok {
			continue
		}
		if !Pow10Fits(v, tc.p) {
			if err == nil {
				t.Errorf("%q: fast path says out of range, exact path gives %s", tc.in, want.S)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: fast path gives %d, exact path errs %v", tc.in, v, err)
		} else if got := string(AppendScaled(nil, v, tc.s)); got != want.S {
			t.Errorf("%q: got %s, want %s", tc.in, got, want.S)
		}
	}
}

func TestDateISO(t *testing.T) {
	for _, in := range []string{"1992-01-02", "2000-02-29", "1900-02-29", "2024-02-29", "1998-12-31", "2001-04-31", "1970-01-01", "9999-12-31", "0001-01-01", "1992-1-02", "1992-13-01"} {
		got, ok := DateISO([]byte(in))
		want, err := ParseDate(in)
		if ok && (err != nil || got != want) {
			t.Errorf("%s: fast %d, exact %d %v", in, got, want, err)
		}
		if !ok && err == nil && len(in) == 10 {
			t.Errorf("%s: fast path refused a valid ISO date", in)
		}
	}
}
