// Package pgerr holds the error type every layer uses to say what went wrong
// in PostgreSQL's terms: a SQLSTATE, a message, and where it helps a position.
// The wire layer maps it to an ErrorResponse in one place.
package pgerr

import (
	"context"
	"errors"
	"fmt"
)

// SQLSTATE codes Loam raises. Names follow PostgreSQL's errcodes.txt.
const (
	SuccessfulCompletion          = "00000"
	FeatureNotSupported           = "0A000"
	InvalidTransactionState       = "25000"
	InFailedTransaction           = "25P02"
	DeadlockDetected              = "40P01"
	InvalidSavepointSpec          = "3B001"
	ActiveSQLTransaction          = "25001"
	NoActiveSQLTransaction        = "25P01"
	DataException                 = "22000"
	StringDataRightTruncation     = "22001"
	NumericValueOutOfRange        = "22003"
	InvalidDatetimeFormat         = "22007"
	DatetimeFieldOverflow         = "22008"
	DivisionByZero                = "22012"
	InvalidParameterValue         = "22023"
	InvalidTextRepresentation     = "22P02"
	InvalidBinaryRepresentation   = "22P03"
	BadCopyFileFormat             = "22P04"
	NotNullViolation              = "23502"
	UniqueViolation               = "23505"
	SyntaxError                   = "42601"
	UndefinedColumn               = "42703"
	UndefinedTable                = "42P01"
	UndefinedFunction             = "42883"
	AmbiguousFunction             = "42725"
	UndefinedObject               = "42704"
	UndefinedParameter            = "42P02"
	UndefinedSchema               = "3F000"
	DuplicateTable                = "42P07"
	DuplicateSchema               = "42P06"
	DuplicateColumn               = "42701"
	AmbiguousColumn               = "42702"
	DatatypeMismatch              = "42804"
	DuplicateAlias                = "42712"
	InvalidRecursion              = "42P19"
	WindowingError                = "42P20"
	GroupingError                 = "42803"
	InvalidColumnReference        = "42P10"
	CannotCoerce                  = "42846"
	DependentObjectsStillExist    = "2BP01"
	ProtocolViolation             = "08P01"
	InvalidAuthorizationSpec      = "28000"
	InvalidPassword               = "28P01"
	InvalidCatalogName            = "3D000"
	UndefinedPreparedStatement    = "26000"
	InvalidCursorName             = "34000"
	DuplicatePreparedStatement    = "42P05"
	DuplicateCursor               = "42P03"
	QueryCanceled                 = "57014"
	OutOfMemory                   = "53200"
	AdminShutdown                 = "57P01"
	InternalError                 = "XX000"
	CantChangeRuntimeParam        = "55P02"
	InsufficientPrivilege         = "42501"
	InvalidSchemaDefinition       = "42P15"
	InvalidTableDefinition        = "42P16"
	WrongObjectType               = "42809"
	IOError                       = "58030"
	UndefinedFile                 = "58P01"
	CardinalityViolation          = "21000"
	ProgramLimitExceeded          = "54000"
	StatementTooComplex           = "54001"
	TooManyArguments              = "54023"
	IndeterminateDatatype         = "42P18"
	InvalidRegularExpression      = "2201B"
	InvalidRowCountInLimit        = "2201W"
	InvalidRowCountInResultOffset = "2201X"
)

// Error is a PostgreSQL-shaped error. Position is 1-based in characters of
// the query text, 0 when there is none.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int
	Where    string // context, such as the COPY line an error is on
	Severity string // ERROR unless set (FATAL for connection-ending errors)
	cause    error
}

func (e *Error) Error() string { return e.Message }

// SQLState returns the five-character SQLSTATE.
func (e *Error) SQLState() string { return e.Code }

func (e *Error) Unwrap() error { return e.cause }

// New makes an error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap attaches a SQLSTATE to an underlying error, keeping it for errors.Is.
func Wrap(code string, err error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Message: msg, cause: err}
}

// WithPosition returns a copy of e pointing at a 1-based character position.
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	c.Position = pos
	return &c
}

// Caused returns a copy of e whose cause, for errors.As, is err: a layer
// below can raise PostgreSQL's error and still tell the layer above what
// it was about.
func (e *Error) Caused(err error) *Error {
	c := *e
	c.cause = err
	return &c
}

// WithHint returns a copy of e carrying a hint.
func (e *Error) WithHint(h string) *Error {
	c := *e
	c.Hint = h
	return &c
}

// From finds the *Error in err's chain; anything else is an internal error.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Code: InternalError, Message: err.Error(), cause: err}
}

// Code returns the SQLSTATE of err, XX000 when it carries none.
func Code(err error) string {
	if err == nil {
		return SuccessfulCompletion
	}
	return From(err).Code
}

// Canceled is the error of a statement whose context ended: the context's
// cause when that is an *Error (statement_timeout gives one), else a
// cancel request's 57014.
func Canceled(ctx context.Context) *Error {
	var e *Error
	if errors.As(context.Cause(ctx), &e) {
		return e
	}
	return New(QueryCanceled, "canceling statement due to user request")
}

// StatementTimeout is the cause of a context that statement_timeout ended.
func StatementTimeout() *Error {
	return New(QueryCanceled, "canceling statement due to statement timeout")
}
