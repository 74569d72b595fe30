package rest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/loamdb/loam/meta"
)

// apiError is the spec's ErrorModel: {"error": {"message", "type", "code"}}.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
	cause   error
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }
func (e *apiError) Unwrap() error { return e.cause }

func errorf(code int, typ, format string, args ...any) *apiError {
	return &apiError{Code: code, Type: typ, Message: fmt.Sprintf(format, args...)}
}

// The exception types clients key on (Java's names, which the spec uses).
const (
	typeNoSuchNamespace = "NoSuchNamespaceException"
	typeNoSuchTable     = "NoSuchTableException"
	typeNoSuchView      = "NoSuchViewException"
	typeAlreadyExists   = "AlreadyExistsException"
	typeNotEmpty        = "NamespaceNotEmptyException"
	typeCommitFailed    = "CommitFailedException"
	typeBadRequest      = "BadRequestException"
	typeNotAuthorized   = "NotAuthorizedException"
	typeUnsupported     = "UnsupportedOperationException"
)

func badRequest(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, typeBadRequest, format, args...)
}

func commitFailed(format string, args ...any) *apiError {
	return errorf(http.StatusConflict, typeCommitFailed, format, args...)
}

// storeError maps a Store error to the error model; notFound is the type a
// missing object gets (a namespace, table or view).
func storeError(err error, notFound string) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, meta.ErrNotFound):
		return &apiError{Code: http.StatusNotFound, Type: notFound, Message: err.Error(), cause: err}
	case errors.Is(err, meta.ErrExists):
		return &apiError{Code: http.StatusConflict, Type: typeAlreadyExists, Message: err.Error(), cause: err}
	case errors.Is(err, meta.ErrNotEmpty):
		return &apiError{Code: http.StatusConflict, Type: typeNotEmpty, Message: err.Error(), cause: err}
	case errors.Is(err, meta.ErrConflict):
		return &apiError{Code: http.StatusConflict, Type: typeCommitFailed, Message: err.Error(), cause: err}
	}
	return &apiError{Code: http.StatusInternalServerError, Type: "ServiceFailureException", Message: err.Error(), cause: err}
}

func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return storeError(err, "NotFoundException")
}

func writeError(w http.ResponseWriter, err error) {
	e := asAPIError(err)
	if e.Code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="loam"`)
	}
	_ = writeJSON(w, e.Code, map[string]*apiError{"error": e})
}
