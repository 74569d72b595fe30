package expr

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Session is what the functions that act on the session need of it when
// they run: set_config and current_setting its settings, nextval and its
// kin its sequences, pg_backend_pid its process ID. The engine implements
// it and puts it in the Ctx of the statements it runs, so a plan holds no
// reference to the session that planned it. A sequence is named as
// regclass prints it or as a user writes it ('s', 'public.s', '"S"').
type Session interface {
	// Setting is a setting's current value; ok is false when unknown.
	Setting(name string) (value string, ok bool)
	// SetConfig is set_config: SET, or SET LOCAL when local; a nil value
	// resets. It returns the new value as SHOW prints it.
	SetConfig(name string, value *string, local bool) (string, error)
	// BackendPID is the process ID sent in BackendKeyData.
	BackendPID() int32
	// NextVal hands out n values of the sequence (nextval n times).
	NextVal(ctx context.Context, seq string, n int) ([]int64, error)
	// CurrVal is the value nextval last returned for the sequence in this
	// session (55000 when none).
	CurrVal(ctx context.Context, seq string) (int64, error)
	// SetVal is setval; it returns v.
	SetVal(ctx context.Context, seq string, v int64, called bool) (int64, error)
	// LastVal is the currval of the sequence nextval last used in this
	// session (55000 when none).
	LastVal() (int64, error)
}

// Context is the context of the statement c evaluates for: a cancel
// request or statement_timeout ends it. Without one it is Background.
func Context(c *Ctx) context.Context {
	if c == nil || c.Context == nil {
		return context.Background()
	}
	return c.Context
}

// session is c's Session, or a 0A000 naming the function that needs one
// (an expression evaluated outside a session, such as a constant fold).
func session(c *Ctx, fn string) (Session, error) {
	if c == nil || c.Session == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s() is not available here", fn)
	}
	return c.Session, nil
}

// NewSleep is pg_sleep(seconds): it waits, ending early with 57014 when
// the statement is cancelled or times out.
func NewSleep(secs Expr) *Func {
	return &Func{Name: "pg_sleep", Args: []Expr{secs}, T: types.Of(types.Void), Strict: true, Fn: sleep}
}

func sleep(c *Ctx, d []types.Datum) (types.Datum, error) {
	ctx := Context(c)
	secs := d[0].F
	switch {
	case math.IsInf(secs, 1):
		<-ctx.Done()
		return types.Datum{}, pgerr.Canceled(ctx)
	case secs > 0:
		t := time.NewTimer(time.Duration(secs * float64(time.Second)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return types.Datum{}, pgerr.Canceled(ctx)
		}
	}
	return types.Datum{T: types.Of(types.Void)}, nil
}

// NewSetConfig is set_config(name, value, is_local).
func NewSetConfig(name, value, local Expr) *Func {
	return &Func{Name: "set_config", Args: []Expr{name, value, local}, T: types.TText, Fn: setConfig}
}

func setConfig(c *Ctx, d []types.Datum) (types.Datum, error) {
	s, err := session(c, "set_config")
	if err != nil {
		return types.Datum{}, err
	}
	if d[0].Null {
		return types.Datum{}, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
	}
	var v *string
	if !d[1].Null {
		v = &d[1].S
	}
	got, err := s.SetConfig(d[0].S, v, !d[2].Null && d[2].I != 0)
	if err != nil {
		return types.Datum{}, err
	}
	return types.TextDatum(got), nil
}

// NewCurrentSetting is current_setting(name [, missing_ok]): the value
// when the row is evaluated, so a set_config earlier in the statement
// shows, as in PostgreSQL.
func NewCurrentSetting(args []Expr) *Func {
	return &Func{Name: "current_setting", Args: args, T: types.TText, Strict: true, Fn: currentSetting}
}

func currentSetting(c *Ctx, d []types.Datum) (types.Datum, error) {
	s, err := session(c, "current_setting")
	if err != nil {
		return types.Datum{}, err
	}
	if v, ok := s.Setting(d[0].S); ok {
		return types.TextDatum(v), nil
	}
	if len(d) > 1 && d[1].I != 0 {
		return types.NullOf(types.TText), nil
	}
	return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", d[0].S)
}

// NewBackendPID is pg_backend_pid().
func NewBackendPID() *Func {
	return &Func{Name: "pg_backend_pid", T: types.TInt4, Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
		s, err := session(c, "pg_backend_pid")
		if err != nil {
			return types.Datum{}, err
		}
		return types.Int(types.TInt4, int64(s.BackendPID())), nil
	}}
}

// NewLastVal is lastval().
func NewLastVal() *Func {
	return &Func{Name: "lastval", T: types.TInt8, Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
		s, err := session(c, "lastval")
		if err != nil {
			return types.Datum{}, err
		}
		v, err := s.LastVal()
		return types.Int(types.TInt8, v), err
	}}
}

// NewCurrVal is currval(sequence); seq is a regclass or text.
func NewCurrVal(seq Expr) *Func {
	return &Func{Name: "currval", Args: []Expr{seq}, T: types.TInt8, Strict: true, Fn: func(c *Ctx, d []types.Datum) (types.Datum, error) {
		s, err := session(c, "currval")
		if err != nil {
			return types.Datum{}, err
		}
		v, err := s.CurrVal(Context(c), d[0].S)
		return types.Int(types.TInt8, v), err
	}}
}

// NewSetVal is setval(sequence, value [, is_called]).
func NewSetVal(args []Expr) *Func {
	return &Func{Name: "setval", Args: args, T: types.TInt8, Strict: true, Fn: func(c *Ctx, d []types.Datum) (types.Datum, error) {
		s, err := session(c, "setval")
		if err != nil {
			return types.Datum{}, err
		}
		called := len(d) < 3 || d[2].I != 0
		v, err := s.SetVal(Context(c), d[0].S, d[1].I, called)
		return types.Int(types.TInt8, v), err
	}}
}

// NewNextVal is nextval(sequence). A batch's values are taken at once when
// every row names the same sequence (a column DEFAULT): one metastore
// round trip a batch.
func NewNextVal(seq Expr) *Func {
	return &Func{Name: "nextval", Args: []Expr{seq}, T: types.TInt8, Strict: true, Fn: nextVal, Vec: nextVals}
}

func nextVal(c *Ctx, d []types.Datum) (types.Datum, error) {
	s, err := session(c, "nextval")
	if err != nil {
		return types.Datum{}, err
	}
	v, err := s.NextVal(Context(c), d[0].S, 1)
	if err != nil {
		return types.Datum{}, err
	}
	return types.Int(types.TInt8, v[0]), nil
}

func nextVals(c *Ctx, args []Expr, _ []arrow.Array, n int) (arrow.Array, error) {
	k, isConst := args[0].(*Const)
	if !isConst || n == 0 {
		return nil, nil // row by row
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	defer bld.Release()
	if k.D.Null {
		bld.AppendNulls(n)
		return bld.NewArray(), nil
	}
	s, err := session(c, "nextval")
	if err != nil {
		return nil, err
	}
	vs, err := s.NextVal(Context(c), k.D.S, n)
	if err != nil {
		return nil, err
	}
	bld.AppendValues(vs, nil)
	return bld.NewArray(), nil
}

// sessionReaders read what the functions that change the session
// (set_config, setval, nextval) change.
var sessionReaders = []string{"current_setting(", "currval(", "lastval("}

// RowOrdered says whether exprs must be evaluated a row at a time, all of
// them for one row before the next. PostgreSQL evaluates a select list row
// by row, so in SELECT nextval('s'), currval('s') FROM … each row's currval
// is that row's nextval; a column at a time, currval would see the whole
// batch's. That matters where a function that changes the session sits
// beside one that reads it, beside another set_config or setval, or beside
// a nextval of the same sequence; nextvals of different sequences (serial
// columns' DEFAULTs) keep their batch at a time.
func RowOrdered(exprs []Expr) bool {
	var text strings.Builder
	for _, e := range exprs {
		text.WriteString(e.String())
		text.WriteByte('\n')
	}
	s := text.String()
	sets := strings.Count(s, "set_config(") + strings.Count(s, "setval(")
	nexts := map[string]int{}
	for i := 0; ; {
		k := strings.Index(s[i:], "nextval(")
		if k < 0 {
			break
		}
		i += k
		end := strings.IndexByte(s[i:], ')')
		if end < 0 {
			end = len(s) - i - 1
		}
		nexts[s[i:i+end+1]]++
		i += len("nextval(")
	}
	writers := sets
	for _, n := range nexts {
		writers += n
		if n > 1 {
			return true // one sequence's nextval twice
		}
	}
	if writers == 0 {
		return false
	}
	for _, r := range sessionReaders {
		if strings.Contains(s, r) {
			return true
		}
	}
	return sets > 0 && writers > 1
}
