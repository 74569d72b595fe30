package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// Hand-annotated frontend byte fixtures.
var (
	// StartupMessage, protocol 3.0, user=loam database=loam.
	fixtureStartup = []byte{
		0, 0, 0, 33, // length 33, counting itself
		0, 3, 0, 0, // protocol 3.0 (196608)
		'u', 's', 'e', 'r', 0, 'l', 'o', 'a', 'm', 0, // user=loam
		'd', 'a', 't', 'a', 'b', 'a', 's', 'e', 0, 'l', 'o', 'a', 'm', 0, // database=loam
		0, // end of parameters
	}
	// SSLRequest: length 8, code 1234.5679 (80877103).
	fixtureSSLRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}
	// GSSENCRequest: length 8, code 1234.5680 (80877104).
	fixtureGSSENCRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30}
	// Startup packet whose parameters lack the final terminator.
	fixtureStartupNoTerminator = []byte{
		0, 0, 0, 17, // length 17
		0, 3, 0, 0, // protocol 3.0
		'u', 's', 'e', 'r', 0, 'x', 0, // user=x, then nothing
		'y', 'z', // dangling bytes without NUL
	}
	// Startup length 3: shorter than its own header.
	fixtureStartupShort = []byte{0, 0, 0, 3}
	// Startup length 1 MiB: over the 10000-byte startup limit.
	fixtureStartupHuge = []byte{0, 0x10, 0, 0, 0, 3, 0, 0}
	// Protocol 2.0 startup.
	fixtureStartupV2 = []byte{0, 0, 0, 9, 0, 2, 0, 0, 0}
	// Query "select 1": type 'Q', length 13 (4 + 8 + NUL).
	fixtureQuery = []byte{'Q', 0, 0, 0, 13, 's', 'e', 'l', 'e', 'c', 't', ' ', '1', 0}
	// Sync: type 'S', length 4, empty body.
	fixtureSync = []byte{'S', 0, 0, 0, 4}
	// Unknown message type 'z' with an empty body.
	fixtureUnknownType = []byte{'z', 0, 0, 0, 4}
	// Message length 3: less than the length field itself.
	fixtureBadLength = []byte{'Q', 0, 0, 0, 3}
	// Message claiming 2 GiB - 1 (over the 1 GiB limit).
	fixtureTooLarge = []byte{'Q', 0x7f, 0xff, 0xff, 0xff}
)

// pieceReader returns at most n bytes per Read, as a slow network would.
type pieceReader struct {
	b []byte
	n int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}

func concat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func TestReadStartup(t *testing.T) {
	cases := []struct {
		name     string
		in       []byte
		wantBody []byte
		wantCode string // SQLSTATE of the error, "" for success
	}{
		{"startup", fixtureStartup, fixtureStartup[4:], ""},
		{"ssl request", fixtureSSLRequest, fixtureSSLRequest[4:], ""},
		{"gssenc request", fixtureGSSENCRequest, fixtureGSSENCRequest[4:], ""},
		{"short length", fixtureStartupShort, nil, pgerr.ProtocolViolation},
		{"huge length", fixtureStartupHuge, nil, pgerr.ProtocolViolation},
	}
	for _, tc := range cases {
		for _, piece := range []int{1, 3, 1 << 20} {
			r := newMsgReader(&pieceReader{b: tc.in, n: piece}, 0)
			body, err := r.readStartup()
			if tc.wantCode != "" {
				if err == nil || pgerr.Code(err) != tc.wantCode {
					t.Errorf("%s/piece=%d: err %v, want %s", tc.name, piece, err, tc.wantCode)
				}
				continue
			}
			if err != nil || !bytes.Equal(body, tc.wantBody) {
				t.Errorf("%s/piece=%d: body %q err %v, want %q", tc.name, piece, body, err, tc.wantBody)
			}
		}
	}
}

func TestParseStartupParams(t *testing.T) {
	p, err := parseStartupParams(fixtureStartup[8:])
	if err != nil || p["user"] != "loam" || p["database"] != "loam" || len(p) != 2 {
		t.Errorf("params %v err %v", p, err)
	}
	if _, err := parseStartupParams(fixtureStartupNoTerminator[8:]); pgerr.Code(err) != pgerr.ProtocolViolation {
		t.Errorf("no terminator: err %v, want 08P01", err)
	}
	if _, err := parseStartupParams([]byte{'u', 0, 0}); pgerr.Code(err) != pgerr.ProtocolViolation {
		t.Errorf("name without value: err %v, want 08P01", err)
	}
}

func TestReadMessage(t *testing.T) {
	type msg struct {
		typ  byte
		body string
	}
	cases := []struct {
		name     string
		in       []byte
		max      int
		want     []msg
		wantCode string // error after the messages in want
		wantEOF  bool
	}{
		{"query then sync", concat(fixtureQuery, fixtureSync), 0, []msg{{'Q', "select 1\x00"}, {'S', ""}}, "", true},
		{"unknown type is framed", fixtureUnknownType, 0, []msg{{'z', ""}}, "", true},
		{"length below 4", fixtureBadLength, 0, nil, pgerr.ProtocolViolation, false},
		{"over 1 GiB", fixtureTooLarge, 0, nil, pgerr.ProtocolViolation, false},
		{"over configured max", fixtureQuery, 8, nil, pgerr.ProtocolViolation, false},
		{"truncated body", fixtureQuery[:9], 0, nil, "", false},
	}
	for _, tc := range cases {
		for _, piece := range []int{1, 2, 7, 1 << 20} {
			r := newMsgReader(&pieceReader{b: tc.in, n: piece}, tc.max)
			var got []msg
			var err error
			for {
				var typ byte
				var body []byte
				typ, body, err = r.readMessage()
				if err != nil {
					break
				}
				got = append(got, msg{typ, string(body)})
			}
			if len(got) != len(tc.want) {
				t.Errorf("%s/piece=%d: got %q, want %q", tc.name, piece, got, tc.want)
				continue
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("%s/piece=%d: message %d = %q, want %q", tc.name, piece, i, got[i], tc.want[i])
				}
			}
			switch {
			case tc.wantCode != "":
				if pgerr.Code(err) != tc.wantCode {
					t.Errorf("%s/piece=%d: err %v, want %s", tc.name, piece, err, tc.wantCode)
				}
			case tc.wantEOF:
				if err != io.EOF {
					t.Errorf("%s/piece=%d: err %v, want EOF", tc.name, piece, err)
				}
			default:
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%s/piece=%d: err %v, want unexpected EOF", tc.name, piece, err)
				}
			}
		}
	}
}

func TestReadLargeMessage(t *testing.T) {
	body := bytes.Repeat([]byte{'x'}, 3*readChunk+17)
	in := append([]byte{'d', 0, 0, 0, 0}, body...)
	n := uint32(len(body) + 4)
	in[1], in[2], in[3], in[4] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	r := newMsgReader(&pieceReader{b: in, n: 4096}, 0)
	typ, got, err := r.readMessage()
	if err != nil || typ != 'd' || !bytes.Equal(got, body) {
		t.Fatalf("typ %q len %d err %v", typ, len(got), err)
	}
}

// FuzzReadMessage feeds arbitrary bytes through the startup reader, the
// message reader and every frontend message decoder the server uses. It
// must never panic.
func FuzzReadMessage(f *testing.F) {
	for _, seed := range [][]byte{
		fixtureStartup, fixtureSSLRequest, concat(fixtureSSLRequest, fixtureStartup),
		fixtureStartupNoTerminator, fixtureStartupShort, fixtureStartupV2,
		concat(fixtureStartup, fixtureQuery, fixtureSync), concat(fixtureStartup, fixtureUnknownType),
		concat(fixtureStartup, fixtureBadLength), concat(fixtureStartup, fixtureTooLarge),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newMsgReader(bytes.NewReader(in), 1<<16)
		body, err := r.readStartup()
		if err != nil {
			return
		}
		if len(body) > 4 {
			_, _ = parseStartupParams(body[4:])
		}
		for i := 0; i < 64; i++ {
			typ, body, err := r.readMessage()
			if err != nil {
				return
			}
			_, _ = decodeFrontend(typ, body)
		}
	})
}
