package wal

import (
	"fmt"
	"os"
)

// Roll closes the segment being written and starts the next one, creating
// its file at once, so that TrimBefore may remove every segment written so
// far once nothing before End is needed: erasure (VACUUM) must not leave
// old records in a segment only because it is still the one appended to.
// Records appended meanwhile are written out first; later ones go to the
// new segment.
func (l *Log) Roll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if err := l.flushLocked(l.end, true); err != nil {
			return err
		}
		// flushLocked leaves the lock for its I/O: appends made meanwhile
		// must be out too, and no write may be running, before the file
		// is closed under it.
		if !l.busy && len(l.pending) == 0 && l.written == l.end {
			break
		}
		if l.busy {
			l.cond.Wait()
		}
	}
	if l.file != nil {
		if !l.opts.NoSync {
			if err := l.file.Sync(); err != nil {
				return fmt.Errorf("wal: roll: %w", err)
			}
		}
		if err := l.file.Close(); err != nil {
			return fmt.Errorf("wal: roll: %w", err)
		}
		l.file = nil
	}
	if l.off > 0 {
		l.seg++
		l.off = 0
		l.end = MakePos(l.seg, 0)
		l.written, l.synced = l.end, l.end
	}
	// The new segment's file is the newest on disk, which TrimBefore
	// always keeps: its index keeps positions growing across restarts.
	f, err := os.OpenFile(segName(l.dir, l.seg), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("wal: roll: %w", err)
	}
	l.file, l.fileSeg = f, l.seg
	if !l.opts.NoSync {
		if err := syncDir(l.dir); err != nil {
			return fmt.Errorf("wal: roll: %w", err)
		}
	}
	return nil
}
