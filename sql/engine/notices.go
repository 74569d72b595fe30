package engine

import "github.com/loamdb/loam/pgerr"

// TakeNotices returns the notices (severity NOTICE) the last statement
// raised, such as "table … does not exist, skipping", and forgets them.
func (s *Session) TakeNotices() []*pgerr.Error {
	n := s.notices
	s.notices = nil
	return n
}

func (s *Session) notice(format string, args ...any) {
	e := pgerr.New(pgerr.SuccessfulCompletion, format, args...)
	e.Severity = "NOTICE"
	s.notices = append(s.notices, e)
}

// warning queues a WARNING with its SQLSTATE, sent like a notice.
func (s *Session) warning(code, msg string) {
	e := pgerr.New(code, "%s", msg)
	e.Severity = "WARNING"
	s.notices = append(s.notices, e)
}

func (s *Session) noticeDetail(msg, detail string) {
	e := pgerr.New(pgerr.SuccessfulCompletion, "%s", msg)
	e.Severity = "NOTICE"
	e.Detail = detail
	s.notices = append(s.notices, e)
}
