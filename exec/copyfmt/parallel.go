package copyfmt

import (
	"bytes"
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

// startParallel begins splitting rd's input across workers.
func (rd *Reader) startParallel() {
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
		line := rd.line
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
			var blk []byte
			if eof {
				blk, carry = buf, nil
			} else if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				blk, carry = buf[:i+1], append([]byte(nil), buf[i+1:]...)
			} else {
				carry = buf // one line longer than a block: keep reading
				continue
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
				line += int64(bytes.Count(blk, []byte{'\n'}))
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					fut <- rd.parseBlock(blk, start)
				}()
			}
			if eof {
				return
			}
		}
	}()
}

// parseBlock parses one block with a reader of its own.
func (rd *Reader) parseBlock(blk []byte, startLine int64) blockResult {
	sub := &Reader{r: nil, opts: rd.opts, cols: rd.cols, table: rd.table, loc: rd.loc, decode: rd.decode, line: startLine}
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
