package engine

import (
	"context"
	"io"

	"github.com/loamdb/loam/pgerr"
)

// CopyIn runs a COPY … FROM STDIN, reading the client's data from r (the
// concatenated CopyData payloads; io.EOF at CopyDone). The whole COPY is
// one atomic write: on error nothing of it becomes visible. It returns the
// CommandComplete tag ("COPY 42").
func (s *Session) CopyIn(ctx context.Context, st *Statement, r io.Reader) (string, error) {
	return "", pgerr.New(pgerr.FeatureNotSupported, "COPY is not implemented yet")
}

// CopyOut runs a COPY … TO STDOUT, writing the data to w in pieces the
// wire layer sends as CopyData messages (each Write is one row or more).
func (s *Session) CopyOut(ctx context.Context, st *Statement, w io.Writer) (string, error) {
	return "", pgerr.New(pgerr.FeatureNotSupported, "COPY is not implemented yet")
}
