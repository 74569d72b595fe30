package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// decodeFrontend decodes one message of the query phase. An unknown type or
// a body that does not decode is a protocol violation, which ends the
// connection. Decoded messages may refer to body.
func decodeFrontend(typ byte, body []byte) (pgproto3.FrontendMessage, error) {
	var m pgproto3.FrontendMessage
	switch typ {
	case 'Q':
		m = &pgproto3.Query{}
	case 'P':
		m = &pgproto3.Parse{}
	case 'B':
		m = &pgproto3.Bind{}
	case 'D':
		m = &pgproto3.Describe{}
	case 'E':
		m = &pgproto3.Execute{}
	case 'C':
		m = &pgproto3.Close{}
	case 'S':
		m = &pgproto3.Sync{}
	case 'H':
		m = &pgproto3.Flush{}
	case 'X':
		m = &pgproto3.Terminate{}
	case 'd':
		m = &pgproto3.CopyData{}
	case 'c':
		m = &pgproto3.CopyDone{}
	case 'f':
		m = &pgproto3.CopyFail{}
	case 'F':
		m = &pgproto3.FunctionCall{}
	default:
		return nil, protocolViolation("invalid frontend message type %d", typ)
	}
	if err := m.Decode(body); err != nil {
		return nil, protocolViolation("invalid frontend message of type %q: %v", typ, err)
	}
	return m, nil
}
