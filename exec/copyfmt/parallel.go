package copyfmt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// blockSize is how much text-format input one parallel task parses.
const blockSize = 4 << 20

// The text format ends every row with a newline (a newline inside a value
// is escaped), so the input splits into blocks at newlines that parse
// independently. One goroutine reads and splits; workers parse blocks into
// batches; Next hands the batches out in input order.

type blockResult struct {
	recs []arrow.RecordBatch
	err  error
	end  bool // the block held the \. end marker
}

type parallel struct {
	futures chan chan blockResult
	quit    chan struct{}
	done    chan struct{} // closed when the splitter has stopped reading
	pending []arrow.RecordBatch
	ended   bool
	once    sync.Once
}

// splitText cuts a text-format buffer after its last complete line.
func splitText(buf []byte, eof bool) (cut int, rows int64, end bool) {
	if eof {
		return len(buf), int64(bytes.Count(buf, []byte{'\n'})), false
	}
	i := bytes.LastIndexByte(buf, '\n')
	if i < 0 {
		return 0, 0, false
	}
	return i + 1, int64(bytes.Count(buf[:i+1], []byte{'\n'})), false
}

// splitBinary cuts a binary-format buffer after its last complete row,
// walking the row framing (field count, then length and bytes per field).
// end reports the trailer; the block then stops before it.
func splitBinary(buf []byte, eof bool) (cut int, rows int64, end bool) {
	pos := 0
	for pos+2 <= len(buf) {
		n := int(int16(binary.BigEndian.Uint16(buf[pos:])))
		if n == -1 {
			return pos, rows, true
		}
		p := pos + 2
		ok := true
		for f := 0; f < n; f++ {
			if p+4 > len(buf) {
				ok = false
				break
			}
			l := int(int32(binary.BigEndian.Uint32(buf[p:])))
			p += 4
			if l > 0 {
				p += l
			}
			if p > len(buf) {
				ok = false
				break
			}
		}
		if !ok || n < 0 {
			break
		}
		pos = p
		rows++
	}
	if eof {
		// A torn last row goes to a parser, which reports it.
		return len(buf), rows, false
	}
	return pos, rows, false
}

// startParallel begins splitting rd's input across workers.
func (rd *Reader) startParallel() {
	split := splitText
	if rd.opts.Format == Binary {
		split = splitBinary
	}
	workers := runtime.GOMAXPROCS(0)
	p := &parallel{
		futures: make(chan chan blockResult, 2*workers),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	rd.par = p
	sem := make(chan struct{}, workers)
	go func() {
		defer close(p.done)
		defer close(p.futures)
		var carry []byte
		if rd.opts.Format == Binary {
			if err := rd.readBinaryHeader(); err != nil {
				fut := make(chan blockResult, 1)
				fut <- blockResult{err: err}
				p.futures <- fut
				_, _ = io.Copy(io.Discard, rd.r)
				return
			}
		}
		line := rd.line
		ended := false
		for {
			buf := make([]byte, len(carry), len(carry)+blockSize)
			copy(buf, carry)
			n, err := io.ReadFull(rd.r, buf[len(carry):cap(buf)])
			buf = buf[:len(carry)+n]
			eof := err == io.EOF || err == io.ErrUnexpectedEOF
			if err != nil && !eof {
				fut := make(chan blockResult, 1)
				fut <- blockResult{err: err}
				p.futures <- fut
				return
			}
			if ended {
				// After the binary trailer, read on to the end unparsed.
				carry = nil
				if eof {
					return
				}
				continue
			}
			cut, rows, end := split(buf, eof)
			if cut == 0 && !eof && !end {
				carry = buf // one row longer than a block: keep reading
				continue
			}
			blk := buf[:cut]
			carry = append([]byte(nil), buf[cut:]...)
			if end {
				ended, carry = true, nil
			}
			if len(blk) > 0 {
				fut := make(chan blockResult, 1)
				select {
				case p.futures <- fut:
				case <-p.quit:
					// The consumer is gone: keep reading to the end of the
					// stream without parsing, so the connection stays in step.
					_, err := io.Copy(io.Discard, rd.r)
					_ = err
					return
				}
				start := line
				line += rows
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					fut <- rd.parseBlockRecovered(blk, start)
				}()
			}
			if eof {
				return
			}
		}
	}()
}

// parseBlockRecovered is parseBlock on a goroutine of its own, where a
// panic would end the server: it becomes the COPY's internal error.
func (rd *Reader) parseBlockRecovered(blk []byte, startLine int64) (res blockResult) {
	defer func() {
		if r := recover(); r != nil {
			res = blockResult{err: fmt.Errorf("copy: internal error in the block from line %d: %v", startLine+1, r)}
		}
	}()
	return rd.parseBlock(blk, startLine)
}

// parseBlock parses one block with a reader of its own.
func (rd *Reader) parseBlock(blk []byte, startLine int64) blockResult {
	sub := &Reader{r: nil, opts: rd.opts, cols: rd.cols, table: rd.table, loc: rd.loc, line: startLine,
		started: true} // a binary block starts after the file header
	sub.r = newBufReader(bytes.NewReader(blk))
	sub.reset()
	var res blockResult
	for {
		rec, err := sub.nextSequential()
		if err != nil {
			for _, r := range res.recs {
				r.Release()
			}
			return blockResult{err: err}
		}
		if rec == nil {
			break
		}
		res.recs = append(res.recs, rec)
	}
	res.end = sub.sawEnd
	return res
}

// nextParallel is Next for parallel input.
func (rd *Reader) nextParallel() (arrow.RecordBatch, error) {
	p := rd.par
	for len(p.pending) == 0 {
		if p.ended {
			return nil, nil
		}
		fut, ok := <-p.futures
		if !ok {
			p.ended = true
			return nil, nil
		}
		res := <-fut
		if res.err != nil {
			return nil, res.err
		}
		p.pending = res.recs
		if res.end {
			p.ended = true // later blocks come after the end marker
		}
	}
	rec := p.pending[0]
	p.pending = p.pending[1:]
	return rec, nil
}

// Close stops parallel parsing and returns once nothing reads the input
// any more (the rest of it has been read and dropped).
func (rd *Reader) Close() {
	p := rd.par
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.quit)
		for fut := range p.futures {
			for _, r := range (<-fut).recs {
				r.Release()
			}
		}
		<-p.done
		for _, r := range p.pending {
			r.Release()
		}
		p.pending = nil
	})
}
