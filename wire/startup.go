package wire

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

// Startup-phase request codes (the int32 after the length).
const (
	protocolV3        = 3 << 16  // 196608: protocol 3.0
	sslRequestCode    = 80877103 // SSLRequest: 'S' and TLS when configured, else 'N'
	gssEncRequestCode = 80877104 // GSSENCRequest: answered 'N'
	cancelRequestCode = 80877102 // CancelRequest: pid, secret; no answer
	maxNegotiations   = 2        // SSL and GSS requests before the startup
	defaultName       = "loam"   // default user and the only database
	pqOptionPrefix    = "_pq_."  // protocol options, reported as unrecognized
)

func fatalError(code, format string, args ...any) *pgerr.Error {
	e := pgerr.New(code, format, args...)
	e.Severity = severityFatal
	return e
}

// errCancelHandled ends a connection that carried a CancelRequest.
var errCancelHandled = &ioError{err: errorString("cancel request handled")}

type errorString string

func (e errorString) Error() string { return string(e) }

// startup runs the startup phase: encryption requests, the startup packet,
// authentication, then the session's ParameterStatus, BackendKeyData and
// the first ReadyForQuery.
func (c *conn) startup() error {
	_ = c.nc.SetReadDeadline(time.Now().Add(c.srv.cfg.AuthTimeout))
	if c.shuttingDown() { // interrupt may have set its deadline before ours
		return adminShutdown()
	}
	params, err := c.readStartupPacket()
	if err != nil {
		return err
	}
	user := params["user"]
	if user == "" {
		user = defaultName
	}
	db := params["database"]
	if db == "" {
		db = defaultName
	}
	c.user = user
	if c.srv.failed.blocked(c.hostString()) {
		err := fatalError(pgerr.InvalidAuthorizationSpec,
			"too many failed login attempts from host %q; try again later", c.hostString())
		c.reportLogin(user, db, "", err)
		return err
	}
	if !c.srv.admitClient(c) {
		err := tooManyClients()
		c.reportLogin(user, db, "", err)
		return err
	}
	method, err := c.login(user, db)
	if err == nil && db != defaultName { // checked after authentication, as PostgreSQL does
		err = fatalError(pgerr.InvalidCatalogName, "database %q does not exist", db)
	}
	c.reportLogin(user, db, method, err)
	if err != nil {
		if isAuthFailure(err) {
			c.srv.failed.fail(c.hostString())
		}
		return err
	}
	c.srv.failed.succeed(c.hostString())
	_ = c.nc.SetReadDeadline(time.Time{})
	if c.shuttingDown() {
		return adminShutdown()
	}
	sess, err := c.srv.cfg.Engine.NewSession(user, db, sessionParams(params))
	if err != nil {
		pe := *toPgError(err)
		pe.Severity = severityFatal
		return &pe
	}
	c.sess = sess
	c.srv.register(c)
	sess.SetBackendPID(c.pid) // pg_backend_pid() reports the key's pid
	c.send(&pgproto3.AuthenticationOk{})
	for _, kv := range sess.ParameterStatus() {
		c.send(&pgproto3.ParameterStatus{Name: kv[0], Value: kv[1]})
	}
	sess.TakeParameterChanges()
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})
	return c.readyForQuery()
}

// readStartupPacket reads packets until the StartupMessage and returns its
// parameters. It answers an SSLRequest with TLS when configured, GSS
// encryption and SSL otherwise with 'N', and handles a CancelRequest
// (returning errCancelHandled).
func (c *conn) readStartupPacket() (map[string]string, error) {
	for n := 0; ; n++ {
		body, err := c.rd.readStartup()
		if err != nil {
			return nil, err
		}
		code := binary.BigEndian.Uint32(body)
		switch code {
		case sslRequestCode, gssEncRequestCode:
			if len(body) != 4 || n >= maxNegotiations || c.tls {
				return nil, protocolViolation("invalid encryption request packet")
			}
			if code == sslRequestCode && c.srv.cfg.TLS != nil {
				if err := c.startTLS(); err != nil {
					return nil, err
				}
				continue
			}
			if _, err := c.w.Write([]byte{'N'}); err != nil {
				return nil, &ioError{err}
			}
			continue
		case cancelRequestCode:
			if len(body) != 12 {
				return nil, protocolViolation("invalid length of cancel request packet")
			}
			c.srv.cancel(binary.BigEndian.Uint32(body[4:8]), body[8:12])
			return nil, errCancelHandled
		}
		major, minor := code>>16, code&0xffff
		if major != 3 {
			return nil, fatalError(pgerr.FeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor)
		}
		params, err := parseStartupParams(body[4:])
		if err != nil {
			return nil, err
		}
		var unknown []string
		for k := range params {
			if strings.HasPrefix(k, pqOptionPrefix) {
				unknown = append(unknown, k)
				delete(params, k)
			}
		}
		if minor > 0 || len(unknown) > 0 {
			c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknown})
		}
		return params, nil
	}
}

// parseStartupParams reads name\0value\0 ... \0.
func parseStartupParams(b []byte) (map[string]string, error) {
	if len(b) == 0 || b[len(b)-1] != 0 {
		return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
	}
	params := map[string]string{}
	b = b[:len(b)-1]
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
		}
		name := string(b[:i])
		b = b[i+1:]
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
		}
		params[name] = string(b[:j])
		b = b[j+1:]
	}
	return params, nil
}

// sessionParams adds the settings in the "options" parameter
// ("-c name=value", "--name=value") to the startup parameters.
func sessionParams(params map[string]string) map[string]string {
	opts := params["options"]
	if opts == "" {
		return params
	}
	out := make(map[string]string, len(params))
	for k, v := range params {
		out[k] = v
	}
	f := splitOptions(opts)
	for i := 0; i < len(f); i++ {
		var kv string
		switch {
		case f[i] == "-c" && i+1 < len(f):
			i++
			kv = f[i]
		case strings.HasPrefix(f[i], "-c"):
			kv = f[i][2:]
		case strings.HasPrefix(f[i], "--"):
			kv = f[i][2:]
		default:
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[strings.ReplaceAll(k, "-", "_")] = v
		}
	}
	return out
}

// splitOptions splits on spaces; a backslash escapes the next character.
func splitOptions(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case s[i] == ' ' || s[i] == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(s[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
