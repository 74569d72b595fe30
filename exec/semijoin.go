package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// semiJoin is a hash semi or anti join: the left rows that have (semi) or
// have not (anti) a right row with equal keys for which extra holds. It
// yields the left rows only, each at most once, in their order. The right
// input is read into a hash table; the left streams.
type semiJoin struct {
	anti        bool
	nullAware   bool // NOT IN: a NULL on either side means "unknown", never kept
	left, right Operator
	lkeys       []expr.Expr
	rkeys       []expr.Expr
	extra       expr.Expr // over left then right columns; nil: true
	ec          *expr.Ctx
	pairSchema  *arrow.Schema

	built     bool
	right0    arrow.RecordBatch
	table     map[string][]int32
	rightNull bool // some right row has a NULL key (nullAware)
	keyBuf    []byte
}

// NewSemiJoin is a hash semi join (anti false) or anti join (anti true)
// of left and right on lkeys = rkeys (a NULL key matches nothing) and
// extra. nullAware makes an anti join NOT IN's: with a single key, a left
// row is kept only if the right side is empty, or its key is not NULL, no
// right key is NULL and none equals it.
func NewSemiJoin(anti, nullAware bool, left, right Operator, lkeys, rkeys []expr.Expr, extra expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T{}, left.Types()...), right.Types()...)
	return &semiJoin{anti: anti, nullAware: nullAware && anti, left: left, right: right, lkeys: lkeys, rkeys: rkeys, extra: extra, ec: ec, pairSchema: Schema(ts)}
}

func (j *semiJoin) Types() []types.T { return j.left.Types() }

func (j *semiJoin) Open(ctx context.Context) error {
	return openBoth(ctx, j.left, j.right)
}

func (j *semiJoin) Close() error {
	if j.right0 != nil {
		j.right0.Release()
		j.right0 = nil
	}
	return closeBoth(j.left, j.right)
}

func (j *semiJoin) build(ctx context.Context) error {
	j.built = true
	all, err := Drain(ctx, j.right)
	if err != nil {
		return err
	}
	if all == nil {
		all = emptyBatch(j.right.Types())
	}
	j.right0 = all
	key, release, err := joinKeys(j.ec, all, j.rkeys, &j.keyBuf)
	if err != nil {
		return err
	}
	defer release()
	// Without extra only whether a key is there matters.
	j.table, j.rightNull, err = hashRows(ctx, key, int(all.NumRows()), j.extra == nil)
	return err
}

func (j *semiJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !j.built {
		if err := j.build(ctx); err != nil {
			return nil, err
		}
	}
	return nextKept(ctx, j.left, j.probe)
}

// probe keeps the rows of one left batch that the join lets through.
func (j *semiJoin) probe(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	matched := make([]bool, n)
	if j.nullAware && j.right0.NumRows() > 0 && j.rightNull {
		// x NOT IN (…, NULL, …) is never true: no row is kept.
		return j.keep(ctx, rec, matched, true)
	}
	key, release, err := joinKeys(j.ec, rec, j.lkeys, &j.keyBuf)
	if err != nil {
		return nil, err
	}
	defer release()
	// A NULL left key is "unknown" against a non-empty right side: NOT IN
	// treats it as matched (never kept).
	nullMatches := j.nullAware && j.right0.NumRows() > 0
	var li, ri []int32
	for r := 0; r < n; r++ {
		k, ok := key(r)
		if !ok {
			matched[r] = nullMatches
			continue
		}
		rows, found := j.table[string(k)]
		if !found {
			continue
		}
		if j.extra == nil {
			matched[r] = true
			continue
		}
		for _, m := range rows {
			li, ri = append(li, int32(r)), append(ri, m)
		}
	}
	for start := 0; start < len(li); start += maxPairs {
		end := min(len(li), start+maxPairs)
		if err := j.checkExtra(ctx, rec, li[start:end], ri[start:end], matched); err != nil {
			return nil, err
		}
	}
	return j.keep(ctx, rec, matched, !j.anti)
}

// checkExtra marks the left rows of the pairs for which extra is TRUE.
func (j *semiJoin) checkExtra(ctx context.Context, rec arrow.RecordBatch, li, ri []int32, matched []bool) error {
	// Pairs of a left row already matched need no second look.
	var l2, r2 []int32
	for k := range li {
		if !matched[li[k]] {
			l2, r2 = append(l2, li[k]), append(r2, ri[k])
		}
	}
	if len(l2) == 0 {
		return nil
	}
	lcols, err := takeCols(ctx, rec, l2)
	if err != nil {
		return err
	}
	rcols, err := takeCols(ctx, j.right0, r2)
	if err != nil {
		for _, c := range lcols {
			c.Release()
		}
		return err
	}
	cols := append(lcols, rcols...)
	pairs := array.NewRecordBatch(j.pairSchema, cols, int64(len(l2)))
	for _, c := range cols {
		c.Release()
	}
	defer pairs.Release()
	mask, err := j.extra.Eval(j.ec, pairs)
	if err != nil {
		return err
	}
	defer mask.Release()
	m := mask.(*array.Boolean)
	for k := range l2 {
		if m.IsValid(k) && m.Value(k) {
			matched[l2[k]] = true
		}
	}
	return nil
}

// keep is the rows of rec whose matched flag equals want.
func (j *semiJoin) keep(ctx context.Context, rec arrow.RecordBatch, matched []bool, want bool) (arrow.RecordBatch, error) {
	b := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, m := range matched {
		b.Append(m == want)
	}
	mask := b.NewBooleanArray()
	defer mask.Release()
	return applyMask(ctx, rec, mask)
}
