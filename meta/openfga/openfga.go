// Package openfga is a meta.Authorizer backed by OpenFGA: an in-process
// OpenFGA server over its memory storage, holding the Store's roles,
// memberships, owners and privileges as relationship tuples (model.go)
// and answering each privilege check with an OpenFGA Check.
//
// The Store stays the record. The memory storage starts empty, so New
// loads every tuple from the Store; afterwards Refresh brings the tuples
// in step with the Store, writing what is missing and deleting what is
// gone in one write. The SQL statements that change roles, memberships,
// owners or privileges call Refresh after their Store write, on the
// server that ran them; another server sharing the metastore sees the
// change only at its own next Refresh (its next such statement, or a
// restart), unlike the built-in authorizer, which reads the Store on
// every check. The memory storage scans its tuples on each read, which
// suits thousands of grants, not millions.
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
	st      meta.Store
	srv     *server.Server
	storeID string
	modelID string

	// mu serializes Refresh; have is the tuple set the OpenFGA store
	// holds, which only Refresh writes.
	mu   sync.Mutex
	have map[tuple]bool
}

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
	a := &Authorizer{st: st, srv: srv, have: map[tuple]bool{}}
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
// with obj's parent links as contextual tuples. A superuser principal is
// allowed without one, as in the built-in authorizer; the model also
// makes the Store's superusers server admins.
func (a *Authorizer) Allowed(ctx context.Context, p meta.Principal, priv string, obj meta.Object) (bool, error) {
	if p.Superuser {
		return true, nil
	}
	typ, object, parents, ok := objectOf(obj)
	if !ok {
		return false, fmt.Errorf("openfga: check %s on %s: no such kind of object", priv, obj)
	}
	ctxTuples := make([]*openfgav1.TupleKey, len(parents))
	for i, t := range parents {
		ctxTuples[i] = &openfgav1.TupleKey{Object: t[0], Relation: t[1], User: t[2]}
	}
	res, err := a.srv.Check(ctx, &openfgav1.CheckRequest{
		StoreId:              a.storeID,
		AuthorizationModelId: a.modelID,
		TupleKey: &openfgav1.CheckRequestTupleKey{
			User:     roleUser(p.Name),
			Relation: checkRelation(typ, priv),
			Object:   object,
		},
		ContextualTuples: &openfgav1.ContextualTupleKeys{TupleKeys: ctxTuples},
	})
	if err != nil {
		return false, fmt.Errorf("openfga: check %s on %s for %q: %w", priv, obj, p.Name, err)
	}
	return res.GetAllowed(), nil
}

// Refresh reads the Store's roles, memberships, owners and privileges and
// brings the OpenFGA tuples in step: one write adds what is missing and
// deletes what is gone.
func (a *Authorizer) Refresh(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	want, err := storeTuples(ctx, a.st)
	if err != nil {
		return fmt.Errorf("openfga: refresh: %w", err)
	}
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
	if len(writes) == 0 && len(deletes) == 0 {
		return nil
	}
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
	a.have = want
	return nil
}
