package engine

import (
	"context"
	"time"

	"github.com/loamdb/loam/meta"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// The audit trail: DDL, GRANT and REVOKE and role changes, whether they
// succeeded or failed, go to the structured log and to loam_audit
// (logins are the wire layer's, through the server).

// auditKind is the audit kind of a statement, "" for one not audited.
func auditKind(n *pg.Node) string {
	switch n.Node.(type) {
	case *pg.Node_CreateRoleStmt, *pg.Node_AlterRoleStmt, *pg.Node_DropRoleStmt, *pg.Node_AlterRoleSetStmt:
		return meta.AuditRole
	case *pg.Node_GrantStmt, *pg.Node_GrantRoleStmt, *pg.Node_AlterDefaultPrivilegesStmt:
		return meta.AuditGrant
	case *pg.Node_ReassignOwnedStmt, *pg.Node_DropOwnedStmt:
		return meta.AuditDDL
	case *pg.Node_CreateStmt, *pg.Node_CreateTableAsStmt, *pg.Node_CreateSeqStmt, *pg.Node_AlterSeqStmt,
		*pg.Node_ViewStmt, *pg.Node_CreateSchemaStmt, *pg.Node_DropStmt, *pg.Node_AlterTableStmt,
		*pg.Node_RenameStmt, *pg.Node_AlterOwnerStmt, *pg.Node_TruncateStmt, *pg.Node_CommentStmt,
		*pg.Node_IndexStmt:
		return meta.AuditDDL
	case *pg.Node_SelectStmt:
		if n.GetSelectStmt().IntoClause != nil {
			return meta.AuditDDL
		}
	}
	if rs := n.GetRenameStmt(); rs != nil && rs.RenameType == pg.ObjectType_OBJECT_ROLE {
		return meta.AuditRole
	}
	return ""
}

// auditStatement records a statement of an audited kind and its outcome.
func (s *Session) auditStatement(ctx context.Context, kind, query string, err error) {
	e := meta.AuditEvent{Time: time.Now(), Role: s.currentRole(), Address: s.clientAddr, Kind: kind, Statement: query, OK: err == nil}
	if err != nil {
		e.Detail = err.Error()
	}
	s.eng.log.Info("audit", "kind", e.Kind, "role", e.Role, "session_user", s.sessionUser(), "address", e.Address,
		"ok", e.OK, "statement", e.Statement, "detail", e.Detail)
	// The trail must not fail the statement it records: a metastore
	// that cannot take the row is logged.
	if aerr := s.eng.meta.AppendAudit(context.WithoutCancel(ctx), e); aerr != nil {
		s.eng.log.Warn("audit: writing loam_audit failed", "err", aerr)
	}
}
