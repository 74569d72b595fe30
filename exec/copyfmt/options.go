// Package copyfmt reads and writes the data of COPY: PostgreSQL's text,
// CSV and binary formats, streamed a batch at a time so that a COPY of any
// size runs in bounded memory.
package copyfmt

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
