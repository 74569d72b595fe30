package meta

import (
	"errors"
	"fmt"
	"time"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"modernc.org/sqlite" // database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDialect keeps timestamps as integer microseconds since the Unix
// epoch, which compare correctly as numbers (SQLite has no timestamp type,
// and text timestamps compare wrongly across zones). Concurrent writers
// are serialised by the database lock: every read-write transaction
// begins IMMEDIATE (_txlock=immediate) and waits out busy_timeout for the
// lock, so migrations need no lock of their own.
var sqliteDialect = &dialect{
	kind:       "sqlite",
	driver:     "sqlite",
	iceberg:    sqlcat.SQLite,
	timeType:   "INTEGER",
	serialType: "INTEGER PRIMARY KEY",
	timeArg:    func(t time.Time) any { return t.UnixMicro() },
	timeValue: func(v any) (time.Time, error) {
		switch v := v.(type) {
		case int64:
			return time.UnixMicro(v).UTC(), nil
		default:
			return time.Time{}, fmt.Errorf("meta: sqlite timestamp is %T, want integer microseconds", v)
		}
	},
}

// sqliteDSN is the modernc DSN of the database file at path: WAL lets
// readers run beside the writer, the busy timeout makes writers wait for
// the lock instead of failing with SQLITE_BUSY, and immediate transactions
// take the write lock at BEGIN so two writers never deadlock on upgrading
// a read lock.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// isSQLiteBusy says err is SQLITE_BUSY (or one of its extended codes).
func isSQLiteBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}
