// Package openfga is a meta.Authorizer backed by OpenFGA: an in-process
// OpenFGA server over its memory storage, holding the Store's roles,
// memberships, owners and privileges as relationship tuples (model.go)
// and answering each privilege check with an OpenFGA Check.
//
// The Store stays the record, and its AuthzVersion says when the tuples
// are behind: the memory storage starts empty, so New loads every tuple;
// afterwards each check first reads the version (once a statement, through
// meta.AuthzCache and meta.WithAuthzScope, as the built-in authorizer
// does) and, when it moved, brings the tuples in step with a new snapshot
// in one write (what is missing written, what is gone deleted). So a
// change made on any server sharing the metastore holds from the next
// statement here, as with the built-in authorizer; Refresh does the same
// at once. The memory storage scans its tuples on each read, which suits
// thousands of grants, not millions.
package openfga

import (
	"context"
	"fmt"
	"math"
	"sync"

	openfgav1 "github.com/openfga/api/proto/openfga/v1"
	"github.com/openfga/language/pkg/go/transformer"
	"github.com/openfga/openfga/pkg/server"
	"github.com/openfga/openfga/pkg/storage/memory"

	"github.com/loamdb/loam/meta"
)

// Authorizer is the OpenFGA-backed meta.Authorizer.
type Authorizer struct {
	cache   *meta.AuthzCache
	srv     *server.Server
	storeID string
	modelID string

	// mu serializes syncs; have is the tuple set the OpenFGA store holds
	// (only sync writes it), made from the snapshot of version; decided
	// are the Checks answered on those tuples.
	mu      sync.Mutex
	have    map[tuple]bool
	version int64
	decided map[check]bool
}

// check is one Check's question.
type check struct{ user, relation, object string }

// maxDecided bounds the answers kept between changes of the tuples.
const maxDecided = 1 << 16

var _ meta.Authorizer = (*Authorizer)(nil)

// New starts an in-process OpenFGA server, writes the model and loads the
// Store's facts into it. Close stops the server.
func New(ctx context.Context, st meta.Store) (*Authorizer, error) {
	model, err := transformer.TransformDSLToProto(modelDSL())
	if err != nil {
		return nil, fmt.Errorf("openfga: model: %w", err)
	}
	// One write holds a whole Refresh, so a Check never sees half of it.
	ds := memory.New(memory.WithMaxTuplesPerWrite(math.MaxInt32))
	srv, err := server.NewServerWithOpts(server.WithDatastore(ds))
	if err != nil {
		ds.Close()
		return nil, fmt.Errorf("openfga: server: %w", err)
	}
	a := &Authorizer{cache: meta.NewAuthzCache(st), srv: srv, have: map[tuple]bool{}, version: -1, decided: map[check]bool{}}
	if err := a.setup(ctx, model); err != nil {
		srv.Close()
		return nil, err
	}
	return a, nil
}

func (a *Authorizer) setup(ctx context.Context, model *openfgav1.AuthorizationModel) error {
	store, err := a.srv.CreateStore(ctx, &openfgav1.CreateStoreRequest{Name: "loam"})
	if err != nil {
		return fmt.Errorf("openfga: create store: %w", err)
	}
	a.storeID = store.GetId()
	m, err := a.srv.WriteAuthorizationModel(ctx, &openfgav1.WriteAuthorizationModelRequest{
		StoreId:         a.storeID,
		SchemaVersion:   model.GetSchemaVersion(),
		TypeDefinitions: model.GetTypeDefinitions(),
		Conditions:      model.GetConditions(),
	})
	if err != nil {
		return fmt.Errorf("openfga: write model: %w", err)
	}
	a.modelID = m.GetAuthorizationModelId()
	return a.Refresh(ctx)
}

// Close stops the OpenFGA server.
func (a *Authorizer) Close() error {
	a.srv.Close()
	return nil
}

// Allowed is an OpenFGA Check of can_<priv> (can_own for OWNER) on obj,
// with obj's parent links as contextual tuples, once the tuples are as
// current as the Store's snapshot. A superuser principal is allowed
// without one, as in the built-in authorizer; the model also makes the
// Store's superusers server admins. An answer is kept until the tuples
// change: a Check costs near a millisecond (OpenFGA resolves the
// model's unions concurrently and walks its graph), a statement makes a
// few, and a kept plan makes the same ones again.
func (a *Authorizer) Allowed(ctx context.Context, p meta.Principal, priv string, obj meta.Object) (bool, error) {
	if p.Superuser {
		return true, nil
	}
	if err := a.sync(ctx); err != nil {
		return false, err
	}
	typ, object, parents, ok := objectOf(obj)
	if !ok {
		return false, fmt.Errorf("openfga: check %s on %s: no such kind of object", priv, obj)
	}
	q := check{user: roleUser(p.Name), relation: checkRelation(typ, priv), object: object}
	a.mu.Lock()
	ans, found := a.decided[q]
	version := a.version
	a.mu.Unlock()
	if found {
		return ans, nil
	}
	ctxTuples := make([]*openfgav1.TupleKey, len(parents))
	for i, t := range parents {
		ctxTuples[i] = &openfgav1.TupleKey{Object: t[0], Relation: t[1], User: t[2]}
	}
	res, err := a.srv.Check(ctx, &openfgav1.CheckRequest{
		StoreId:              a.storeID,
		AuthorizationModelId: a.modelID,
		TupleKey:             &openfgav1.CheckRequestTupleKey{User: q.user, Relation: q.relation, Object: q.object},
		ContextualTuples:     &openfgav1.ContextualTupleKeys{TupleKeys: ctxTuples},
	})
	if err != nil {
		return false, fmt.Errorf("openfga: check %s on %s for %q: %w", priv, obj, p.Name, err)
	}
	a.mu.Lock()
	// Kept only if no sync wrote while the Check ran (sync holds mu
	// through its write and its version).
	if a.version == version {
		if len(a.decided) >= maxDecided {
			clear(a.decided)
		}
		a.decided[q] = res.GetAllowed()
	}
	a.mu.Unlock()
	return res.GetAllowed(), nil
}

// Refresh brings the tuples in step with the Store's roles,
// memberships, owners and privileges now (Allowed would at its next
// check).
func (a *Authorizer) Refresh(ctx context.Context) error { return a.sync(ctx) }

// sync writes the difference between the tuples held and those of the
// Store's current snapshot, when its version moved on, in one write.
func (a *Authorizer) sync(ctx context.Context) error {
	snap, err := a.cache.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("openfga: refresh: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if snap.Version <= a.version {
		return nil // current, or a statement's older snapshot: never go back
	}
	want := snapshotTuples(snap)
	var writes []*openfgav1.TupleKey
	var deletes []*openfgav1.TupleKeyWithoutCondition
	for t := range want {
		if !a.have[t] {
			writes = append(writes, &openfgav1.TupleKey{Object: t.object, Relation: t.relation, User: t.user})
		}
	}
	for t := range a.have {
		if !want[t] {
			deletes = append(deletes, &openfgav1.TupleKeyWithoutCondition{Object: t.object, Relation: t.relation, User: t.user})
		}
	}
	if len(writes) > 0 || len(deletes) > 0 {
		req := &openfgav1.WriteRequest{StoreId: a.storeID, AuthorizationModelId: a.modelID}
		if len(writes) > 0 {
			req.Writes = &openfgav1.WriteRequestWrites{TupleKeys: writes}
		}
		if len(deletes) > 0 {
			req.Deletes = &openfgav1.WriteRequestDeletes{TupleKeys: deletes}
		}
		if _, err := a.srv.Write(ctx, req); err != nil {
			return fmt.Errorf("openfga: refresh: write %d, delete %d tuples: %w", len(writes), len(deletes), err)
		}
	}
	a.have, a.version = want, snap.Version
	clear(a.decided)
	return nil
}
