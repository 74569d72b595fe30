package wire

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

const (
	severityError = "ERROR"
	severityFatal = "FATAL"
)

// errShutdown is the cause a connection's context carries when the server
// shuts down.
var errShutdown = errors.New("server shutting down")

// ioError marks a failure of the connection itself (a write that failed):
// nothing more can be sent, the connection just ends.
type ioError struct{ err error }

func (e *ioError) Error() string { return "wire: connection: " + e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

// adminShutdown is the FATAL error sent to open connections on shutdown.
func adminShutdown() *pgerr.Error {
	e := pgerr.New(pgerr.AdminShutdown, "terminating connection due to administrator command")
	e.Severity = severityFatal
	return e
}

// toPgError turns any error into the PostgreSQL error the client sees. It is
// the one place errors are mapped: typed errors keep their SQLSTATE, a
// canceled context is 57014, anything else is XX000.
func toPgError(err error) *pgerr.Error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Code != pgerr.InternalError {
		return pe
	}
	if errors.Is(err, context.Canceled) {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// Only statement_timeout sets a deadline on a statement's context.
		return pgerr.StatementTimeout()
	}
	if pe != nil {
		return pe
	}
	return pgerr.From(err)
}

// isFatal reports whether err ends the connection.
func isFatal(err error) bool {
	var ie *ioError
	if errors.As(err, &ie) {
		return true
	}
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Severity == severityFatal
}

// errorResponse builds the ErrorResponse for err.
func errorResponse(err error) *pgproto3.ErrorResponse {
	pe := toPgError(err)
	sev := pe.Severity
	if sev == "" {
		sev = severityError
	}
	code := pe.Code
	if code == "" {
		code = pgerr.InternalError
	}
	return &pgproto3.ErrorResponse{
		Severity:            sev,
		SeverityUnlocalized: sev,
		Code:                code,
		Message:             pe.Message,
		Detail:              pe.Detail,
		Hint:                pe.Hint,
		Where:               pe.Where,
		Position:            int32(pe.Position),
	}
}
