package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// serialType maps the serial pseudo-types to their integer type: serial
// columns are integer columns with a sequence of their own.
func serialType(tn *pg.TypeName) (types.T, bool) {
	if len(tn.Names) != 1 || len(tn.ArrayBounds) > 0 {
		return types.T{}, false
	}
	switch tn.Names[0].GetString_().Sval {
	case "serial", "serial4":
		return types.TInt4, true
	case "bigserial", "serial8":
		return types.TInt8, true
	case "smallserial", "serial2":
		return types.Of(types.Int2), true
	}
	return types.T{}, false
}

// ownedSeq is a column of a new table that owns a sequence: serial, or
// GENERATED {ALWAYS|BY DEFAULT} AS IDENTITY (identity 'a' or 'd') with the
// sequence options given.
type ownedSeq struct {
	col      int
	opts     []*pg.Node
	identity byte
}

// namedSeq is a sequence to create with a new table.
type namedSeq struct {
	name string
	seq  meta.Sequence
}

// planOwnedSequences names the sequences of a new table's serial and
// identity columns as PostgreSQL does (table_column_seq, with a number
// added while the name is taken) and sets those columns' defaults to
// nextval of them. The sequences are created once the table is.
func (s *Session) planOwnedSequences(ctx context.Context, nt *newTable, owned []ownedSeq, qualify bool, q string) ([]namedSeq, error) {
	var out []namedSeq
	taken := map[string]bool{}
	for _, o := range owned {
		col := nt.fields[o.col].Name
		sq, err := seqOptions(o.opts, nt.types[o.col], q)
		if err != nil {
			return nil, err
		}
		sq.OwnedBy = nt.name + "." + col
		name, err := s.chooseSeqName(ctx, nt.ns, nt.name+"_"+col, taken)
		if err != nil {
			return nil, err
		}
		taken[name] = true
		out = append(out, namedSeq{name: name, seq: sq})
		if nt.defaults == nil {
			nt.defaults = make([]string, len(nt.fields))
		}
		ref := name
		if qualify {
			ref = nt.ns + "." + name
		}
		nt.defaults[o.col] = fmt.Sprintf("nextval('%s'::regclass)", ref)
		if o.identity != 0 {
			if nt.identity == nil {
				nt.identity = make([]string, len(nt.fields))
			}
			nt.identity[o.col] = string(o.identity)
		}
	}
	return out, nil
}

// chooseSeqName is PostgreSQL's ChooseRelationName for a serial's
// sequence: base_seq, else base_seq1, base_seq2, … (63 bytes at most).
func (s *Session) chooseSeqName(ctx context.Context, ns, base string, taken map[string]bool) (string, error) {
	for n := 0; ; n++ {
		label := "seq"
		if n > 0 {
			label = fmt.Sprintf("seq%d", n)
		}
		b := base
		if len(b)+1+len(label) > 63 {
			b = b[:63-1-len(label)]
		}
		name := b + "_" + label
		if taken[name] {
			continue
		}
		cat := s.catalog()
		_, terr := cat.Table(ctx, ns, name)
		cat.release()
		if terr == nil {
			continue
		}
		if pgerr.Code(terr) != pgerr.UndefinedTable {
			return "", terr
		}
		_, err := s.eng.meta.Sequence(ctx, ns, name)
		if errors.Is(err, meta.ErrNotFound) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
}
