package engine

import "testing"

func TestTimeSetting(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0", "0"}, {"100", "100ms"}, {"1000", "1s"}, {"60000", "1min"}, {"90s", "90s"}, {"1500ms", "1500ms"},
		{"2h", "2h"}, {"1d", "1d"}, {"5 s", "5s"}, {"1.5s", "1500ms"}, {"0.5min", "30s"}, {"2500us", "2ms"}, {"3500us", "4ms"},
	} {
		got, err := timeSetting("statement_timeout", c.in)
		if err != nil || got != c.want {
			t.Errorf("timeSetting(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"abc", "", "5 parsecs", "-1", "99999999999"} {
		if got, err := timeSetting("statement_timeout", bad); err == nil {
			t.Errorf("timeSetting(%q) = %q, want an error", bad, got)
		}
	}
}
