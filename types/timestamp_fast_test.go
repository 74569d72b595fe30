package types

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The fast path must agree with the general parser on every input it takes.
func TestISOTimestampFastPathAgrees(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	r := rand.New(rand.NewPCG(1, 2))
	zones := []string{"", "Z", "+00", "+05:30", "-0800", "+1", "x"}
	fracs := []string{"", ".1", ".123", ".123456", ".1234565", ".9999996", "."}
	for i := 0; i < 20000; i++ {
		s := fmt.Sprintf("%04d-%02d-%02d%c%02d:%02d:%02d%s%s", 1+r.IntN(2999), 1+r.IntN(12), 1+r.IntN(31),
			" T"[r.IntN(2)], r.IntN(25), r.IntN(60), r.IntN(61), fracs[r.IntN(len(fracs))], zones[r.IntN(len(zones))])
		for _, withZone := range []bool{true, false} {
			for _, loc := range []*time.Location{time.UTC, ny} {
				fast, ok := parseISOTimestamp(s, withZone, loc)
				if !ok {
					continue
				}
				// The general parser, without the fast path.
				slow, err := parseTimestampSlow(s, withZone, loc)
				if err != nil || slow != fast {
					t.Fatalf("%q zone=%v loc=%v: fast %d, general %d (%v)", s, withZone, loc, fast, slow, err)
				}
			}
		}
	}
}

func BenchmarkParseTimestamp(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ParseTimestamp("2026-11-29 10:00:00.123+00", true, time.UTC)
	}
}
