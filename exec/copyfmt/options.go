// Package copyfmt reads and writes the data of COPY: PostgreSQL's text,
// CSV and binary formats, streamed a batch at a time so that a COPY of any
// size runs in bounded memory.
package copyfmt

import "github.com/apache/arrow-go/v18/arrow"

// Format is a COPY data format.
type Format uint8

const (
	Text Format = iota
	CSV
	Binary
)

// Options are a COPY statement's format options, with PostgreSQL's
// defaults filled in by Defaults.
type Options struct {
	Format    Format
	Delimiter byte
	Null      string
	Header    bool
	Quote     byte
	Escape    byte
	// Describe, when set, prints the row of a NOT NULL violation for the
	// error's detail "Failing row contains (…).": rec holds the parsed row
	// (the COPY columns) at row. The caller sets it to show the whole
	// table row, defaults filled in; it may be called from several
	// goroutines at once. Unset, the row is the COPY columns.
	Describe func(rec arrow.RecordBatch, row int) string
}

// Defaults fills the options the statement left out.
func (o *Options) Defaults(delimSet, nullSet, quoteSet, escapeSet bool) {
	if !delimSet {
		o.Delimiter = '\t'
		if o.Format == CSV {
			o.Delimiter = ','
		}
	}
	if !nullSet {
		o.Null = `\N`
		if o.Format == CSV {
			o.Null = ""
		}
	}
	if !quoteSet {
		o.Quote = '"'
	}
	if !escapeSet {
		o.Escape = o.Quote
	}
}
