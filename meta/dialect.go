package meta

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
)

// dialect is what differs between the SQL databases a Store runs on. The
// statements themselves are shared: they are written with ? placeholders
// and portable types, and the dialect rewrites the few places where SQLite
// and PostgreSQL part ways.
type dialect struct {
	kind    string // Store.Kind
	driver  string // database/sql driver name
	iceberg sqlcat.SupportedDialect

	// numbered placeholders: PostgreSQL wants $1, $2, …, SQLite takes ?.
	numbered bool
	// timeType is the column type of a timestamp in the DDL ({time}).
	timeType string
	// serialType is an integer primary key the database numbers itself
	// ({serial}).
	serialType string
	// timeArg encodes a time for a statement argument; timeValue decodes
	// a scanned column back.
	timeArg   func(time.Time) any
	timeValue func(any) (time.Time, error)
	// forUpdate ends a SELECT that locks the rows it reads until the
	// transaction ends (PostgreSQL); SQLite's immediate transactions hold
	// the whole database already.
	forUpdate string
	// lockMigrations, when set, runs first in every migration transaction
	// and holds off other servers migrating the same store until commit.
	lockMigrations func(ctx context.Context, tx *sql.Tx) error
}

// rebind rewrites the ? placeholders of q for d. The statements in this
// package never hold a ? inside a string literal.
func (d *dialect) rebind(q string) string {
	if !d.numbered || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// ddl fills in the dialect's types in a schema statement.
func (d *dialect) ddl(q string) string {
	return strings.NewReplacer("{time}", d.timeType, "{serial}", d.serialType).Replace(q)
}
