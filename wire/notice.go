package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

// sendNotices sends the session's queued notices as NoticeResponse.
func (c *conn) sendNotices() {
	for _, n := range c.sess.TakeNotices() {
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
