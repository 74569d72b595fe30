package pgcodec

import (
	"encoding/hex"
	"fmt"

	"github.com/loamdb/loam/pgerr"
)

// appendUUID appends the 16 bytes of a uuid in text form (dashes
// optional). On malformed text it still appends 16 bytes, so the row stays
// well-formed while the error ends the statement.
func appendUUID(buf []byte, s string) ([]byte, error) {
	var raw [32]byte
	var out [16]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			continue
		}
		if n == len(raw) {
			n++
			break
		}
		raw[n] = s[i]
		n++
	}
	if n != 32 {
		return append(buf, out[:]...), badUUID(s)
	}
	if _, err := hex.Decode(out[:], raw[:]); err != nil {
		return append(buf, make([]byte, 16)...), badUUID(s)
	}
	return append(buf, out[:]...), nil
}

func badUUID(s string) error {
	return pgerr.New(pgerr.InternalError, "invalid uuid value %q in result", s)
}

// uuidText is uuid_recv's value in the canonical text form batches carry.
func uuidText(b []byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
