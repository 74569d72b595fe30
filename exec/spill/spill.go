// Package spill keeps batches on disk for operators that outgrow their
// memory budget (package mem): a File is written once, read back any
// number of times, and removed. Files are Arrow IPC streams in the
// statement's spill directory.
package spill

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/loamdb/loam/exec/mem"
)

// File is a sequence of batches on disk. Batches whose schema differs
// from the one before (a column dictionary-encoded in one batch and not
// in the next) start a new IPC stream in the same file.
type File struct {
	f      *os.File
	buf    *bufio.Writer
	w      *ipc.Writer
	schema *arrow.Schema
	rows   int64
	bytes  int64
	done   bool
}

// Create makes an empty file in b's spill directory.
func Create(b *mem.Budget) (*File, error) {
	dir, err := b.SpillDir()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "spill-*.arrows")
	if err != nil {
		return nil, fmt.Errorf("creating spill file: %w", err)
	}
	return &File{f: f, buf: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Write appends rec (which stays the caller's).
func (f *File) Write(rec arrow.RecordBatch) error {
	if f.done {
		return errors.New("spill: write after read")
	}
	if rec.NumRows() == 0 {
		return nil
	}
	if f.w == nil || !f.schema.Equal(rec.Schema()) {
		if err := f.endStream(); err != nil {
			return err
		}
		f.schema = rec.Schema()
		f.w = ipc.NewWriter(f.buf, ipc.WithSchema(f.schema))
	}
	if err := f.w.Write(rec); err != nil {
		return fmt.Errorf("writing spill file: %w", err)
	}
	f.rows += rec.NumRows()
	f.bytes += Size(rec)
	return nil
}

func (f *File) endStream() error {
	if f.w == nil {
		return nil
	}
	err := f.w.Close()
	f.w = nil
	if err != nil {
		return fmt.Errorf("writing spill file: %w", err)
	}
	return nil
}

// Rows is the number of rows written.
func (f *File) Rows() int64 { return f.rows }

// Bytes is the in-memory size of the rows written (Size of each batch).
func (f *File) Bytes() int64 { return f.bytes }

// Reader ends writing and reads the batches back from the start.
func (f *File) Reader() (*Reader, error) {
	if !f.done {
		f.done = true
		if err := f.endStream(); err != nil {
			return nil, err
		}
		if err := f.buf.Flush(); err != nil {
			return nil, fmt.Errorf("writing spill file: %w", err)
		}
	}
	r, err := os.Open(f.f.Name())
	if err != nil {
		return nil, fmt.Errorf("reading spill file: %w", err)
	}
	return &Reader{f: r, br: bufio.NewReaderSize(r, 256<<10)}, nil
}

// Remove deletes the file; the File is unusable after.
func (f *File) Remove() {
	if f == nil || f.f == nil {
		return
	}
	f.w = nil
	f.f.Close()
	os.Remove(f.f.Name())
	f.f = nil
}

// Reader reads a File's batches in the order they were written.
type Reader struct {
	f  *os.File
	br *bufio.Reader
	r  *ipc.Reader
}

// Next is the next batch (the caller's to release), nil at the end.
func (r *Reader) Next() (arrow.RecordBatch, error) {
	for {
		if r.r == nil {
			if _, err := r.br.Peek(1); err == io.EOF {
				return nil, nil
			}
			ir, err := ipc.NewReader(r.br)
			if err != nil {
				return nil, fmt.Errorf("reading spill file: %w", err)
			}
			r.r = ir
		}
		if r.r.Next() {
			rec := r.r.RecordBatch()
			rec.Retain()
			return rec, nil
		}
		if err := r.r.Err(); err != nil {
			return nil, fmt.Errorf("reading spill file: %w", err)
		}
		r.r.Release()
		r.r = nil
	}
}

// Close ends reading.
func (r *Reader) Close() error {
	if r.r != nil {
		r.r.Release()
		r.r = nil
	}
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
