package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

// noticeSource is implemented by sessions that queue notices (severity
// NOTICE, WARNING, ...) while a statement runs; *engine.Session does.
type noticeSource interface {
	TakeNotices() []*pgerr.Error
}

// sendNotices sends the session's queued notices as NoticeResponse.
func (c *conn) sendNotices() {
	ns, ok := c.sess.(noticeSource)
	if !ok {
		return
	}
	for _, n := range ns.TakeNotices() {
		e := *n
		if e.Severity == "" {
			e.Severity = "NOTICE"
		}
		if e.Code == "" {
			e.Code = pgerr.SuccessfulCompletion
		}
		msg := pgproto3.NoticeResponse(*errorResponse(&e))
		c.send(&msg)
	}
}
