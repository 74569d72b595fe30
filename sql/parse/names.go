package parse

import (
	"fmt"
	"reflect"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// The names below are how a user wrote a construct, for errors such as
// "CREATE FUNCTION is not supported": a message never shows the parser's
// Go types (*pg_query.Node_RowExpr).

// StmtName is the SQL command a statement node is, as PostgreSQL's
// command tags name it (CREATE FUNCTION, DROP MATERIALIZED VIEW).
func StmtName(n *pg.Node) string {
	switch s := n.GetNode().(type) {
	case *pg.Node_SelectStmt:
		return "SELECT"
	case *pg.Node_InsertStmt:
		return "INSERT"
	case *pg.Node_UpdateStmt:
		return "UPDATE"
	case *pg.Node_DeleteStmt:
		return "DELETE"
	case *pg.Node_MergeStmt:
		return "MERGE"
	case *pg.Node_DropStmt:
		return "DROP " + ObjectName(s.DropStmt.RemoveType)
	case *pg.Node_AlterTableStmt:
		return "ALTER " + ObjectName(s.AlterTableStmt.Objtype)
	case *pg.Node_RenameStmt:
		return "ALTER " + ObjectName(s.RenameStmt.RenameType) + " RENAME"
	case *pg.Node_AlterObjectSchemaStmt:
		return "ALTER " + ObjectName(s.AlterObjectSchemaStmt.ObjectType) + " SET SCHEMA"
	case *pg.Node_AlterOwnerStmt:
		return "ALTER " + ObjectName(s.AlterOwnerStmt.ObjectType) + " OWNER"
	case *pg.Node_CommentStmt:
		return "COMMENT ON " + ObjectName(s.CommentStmt.Objtype)
	case *pg.Node_SecLabelStmt:
		return "SECURITY LABEL"
	case *pg.Node_DefineStmt:
		return "CREATE " + ObjectName(s.DefineStmt.Kind)
	case *pg.Node_CreateTableAsStmt:
		if s.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			return "CREATE MATERIALIZED VIEW"
		}
		return "CREATE TABLE AS"
	case *pg.Node_TransactionStmt:
		return "transaction control"
	case *pg.Node_VacuumStmt:
		if s.VacuumStmt.IsVacuumcmd {
			return "VACUUM"
		}
		return "ANALYZE"
	case *pg.Node_CreateStmt:
		if s.CreateStmt.Relation != nil && s.CreateStmt.Relation.Relpersistence == "t" {
			return "CREATE TEMPORARY TABLE"
		}
		return "CREATE TABLE"
	}
	if name, ok := stmtNames[typeName(n)]; ok {
		return name
	}
	return "this statement"
}

// stmtNames names the statements whose command does not depend on their
// fields, by node type name (typeName).
var stmtNames = map[string]string{
	"AlterCollationStmt": "ALTER COLLATION", "AlterDatabaseRefreshCollStmt": "ALTER DATABASE",
	"AlterDatabaseSetStmt": "ALTER DATABASE", "AlterDatabaseStmt": "ALTER DATABASE",
	"AlterDefaultPrivilegesStmt": "ALTER DEFAULT PRIVILEGES", "AlterDomainStmt": "ALTER DOMAIN",
	"AlterEnumStmt": "ALTER TYPE", "AlterEventTrigStmt": "ALTER EVENT TRIGGER",
	"AlterExtensionContentsStmt": "ALTER EXTENSION", "AlterExtensionStmt": "ALTER EXTENSION",
	"AlterFdwStmt": "ALTER FOREIGN DATA WRAPPER", "AlterForeignServerStmt": "ALTER SERVER",
	"AlterFunctionStmt": "ALTER FUNCTION", "AlterObjectDependsStmt": "ALTER ... DEPENDS ON EXTENSION",
	"AlterOpFamilyStmt": "ALTER OPERATOR FAMILY", "AlterOperatorStmt": "ALTER OPERATOR",
	"AlterPolicyStmt": "ALTER POLICY", "AlterPublicationStmt": "ALTER PUBLICATION",
	"AlterRoleSetStmt": "ALTER ROLE", "AlterRoleStmt": "ALTER ROLE", "AlterSeqStmt": "ALTER SEQUENCE",
	"AlterStatsStmt": "ALTER STATISTICS", "AlterSubscriptionStmt": "ALTER SUBSCRIPTION",
	"AlterSystemStmt": "ALTER SYSTEM", "AlterTableMoveAllStmt": "ALTER TABLE ... SET TABLESPACE",
	"AlterTableSpaceOptionsStmt": "ALTER TABLESPACE", "AlterTsconfigurationStmt": "ALTER TEXT SEARCH CONFIGURATION",
	"AlterTsdictionaryStmt": "ALTER TEXT SEARCH DICTIONARY", "AlterTypeStmt": "ALTER TYPE",
	"AlterUserMappingStmt": "ALTER USER MAPPING", "CallStmt": "CALL", "CheckPointStmt": "CHECKPOINT",
	"ClosePortalStmt": "CLOSE", "ClusterStmt": "CLUSTER", "CompositeTypeStmt": "CREATE TYPE",
	"ConstraintsSetStmt": "SET CONSTRAINTS", "CopyStmt": "COPY", "CreateAmStmt": "CREATE ACCESS METHOD",
	"CreateCastStmt": "CREATE CAST", "CreateConversionStmt": "CREATE CONVERSION",
	"CreateDomainStmt": "CREATE DOMAIN", "CreateEnumStmt": "CREATE TYPE",
	"CreateEventTrigStmt": "CREATE EVENT TRIGGER", "CreateExtensionStmt": "CREATE EXTENSION",
	"CreateFdwStmt": "CREATE FOREIGN DATA WRAPPER", "CreateForeignServerStmt": "CREATE SERVER",
	"CreateForeignTableStmt": "CREATE FOREIGN TABLE", "CreateFunctionStmt": "CREATE FUNCTION",
	"CreateOpClassStmt": "CREATE OPERATOR CLASS", "CreateOpFamilyStmt": "CREATE OPERATOR FAMILY",
	"CreatePlangStmt": "CREATE LANGUAGE", "CreatePolicyStmt": "CREATE POLICY",
	"CreatePublicationStmt": "CREATE PUBLICATION", "CreateRangeStmt": "CREATE TYPE",
	"CreateRoleStmt": "CREATE ROLE", "CreateSchemaStmt": "CREATE SCHEMA", "CreateSeqStmt": "CREATE SEQUENCE",
	"CreateStatsStmt": "CREATE STATISTICS", "CreateSubscriptionStmt": "CREATE SUBSCRIPTION",
	"CreateTableSpaceStmt": "CREATE TABLESPACE", "CreateTransformStmt": "CREATE TRANSFORM",
	"CreateTrigStmt": "CREATE TRIGGER", "CreateUserMappingStmt": "CREATE USER MAPPING",
	"CreatedbStmt": "CREATE DATABASE", "DeallocateStmt": "DEALLOCATE", "DeclareCursorStmt": "DECLARE CURSOR",
	"DiscardStmt": "DISCARD", "DoStmt": "DO", "DropOwnedStmt": "DROP OWNED", "DropRoleStmt": "DROP ROLE",
	"DropSubscriptionStmt": "DROP SUBSCRIPTION", "DropTableSpaceStmt": "DROP TABLESPACE",
	"DropUserMappingStmt": "DROP USER MAPPING", "DropdbStmt": "DROP DATABASE", "ExecuteStmt": "EXECUTE",
	"ExplainStmt": "EXPLAIN", "FetchStmt": "FETCH", "GrantRoleStmt": "GRANT ROLE", "GrantStmt": "GRANT",
	"ImportForeignSchemaStmt": "IMPORT FOREIGN SCHEMA", "IndexStmt": "CREATE INDEX", "ListenStmt": "LISTEN",
	"LoadStmt": "LOAD", "LockStmt": "LOCK TABLE", "NotifyStmt": "NOTIFY", "PlassignStmt": "PL/pgSQL assignment",
	"PrepareStmt": "PREPARE", "ReassignOwnedStmt": "REASSIGN OWNED", "RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW",
	"ReindexStmt": "REINDEX", "ReplicaIdentityStmt": "ALTER TABLE ... REPLICA IDENTITY", "ReturnStmt": "RETURN",
	"RuleStmt": "CREATE RULE", "TruncateStmt": "TRUNCATE", "UnlistenStmt": "UNLISTEN",
	"VariableSetStmt": "SET", "VariableShowStmt": "SHOW", "ViewStmt": "CREATE VIEW",
}

// ExprName is the SQL construct an expression node is: ROW(…),
// XMLELEMENT, COLLATE.
func ExprName(n *pg.Node) string {
	switch x := n.GetNode().(type) {
	case *pg.Node_XmlExpr:
		switch x.XmlExpr.Op {
		case pg.XmlExprOp_IS_XMLCONCAT:
			return "XMLCONCAT"
		case pg.XmlExprOp_IS_XMLELEMENT:
			return "XMLELEMENT"
		case pg.XmlExprOp_IS_XMLFOREST:
			return "XMLFOREST"
		case pg.XmlExprOp_IS_XMLPARSE:
			return "XMLPARSE"
		case pg.XmlExprOp_IS_XMLPI:
			return "XMLPI"
		case pg.XmlExprOp_IS_XMLROOT:
			return "XMLROOT"
		case pg.XmlExprOp_IS_XMLSERIALIZE:
			return "XMLSERIALIZE"
		case pg.XmlExprOp_IS_DOCUMENT:
			return "IS DOCUMENT"
		}
		return "XML expression"
	case *pg.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "EXISTS subquery"
		case pg.SubLinkType_ALL_SUBLINK:
			return "ALL subquery"
		case pg.SubLinkType_ANY_SUBLINK:
			return "ANY/IN subquery"
		case pg.SubLinkType_ROWCOMPARE_SUBLINK:
			return "row comparison with a subquery"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "ARRAY subquery"
		case pg.SubLinkType_MULTIEXPR_SUBLINK:
			return "multiple-column assignment from a subquery"
		}
		return "scalar subquery"
	}
	if name, ok := exprNames[typeName(n)]; ok {
		return name
	}
	return "this expression"
}

var exprNames = map[string]string{
	"RowExpr": "ROW expression", "RowCompareExpr": "row comparison", "XmlSerialize": "XMLSERIALIZE",
	"CollateClause": "COLLATE", "SetToDefault": "DEFAULT", "CurrentOfExpr": "WHERE CURRENT OF",
	"MultiAssignRef": "multiple-column assignment", "GroupingFunc": "GROUPING", "AIndirection": "subscript or field selection",
	"AIndices": "array subscript", "AArrayExpr": "ARRAY[…]", "ArrayExpr": "ARRAY[…]", "MinMaxExpr": "GREATEST/LEAST",
	"CoalesceExpr": "COALESCE", "CaseExpr": "CASE", "NullTest": "IS NULL", "BooleanTest": "IS TRUE/FALSE/UNKNOWN",
	"TypeCast": "type cast", "ParamRef": "parameter", "SqlvalueFunction": "SQL value function",
	"JsonIsPredicate": "IS JSON", "JsonObjectConstructor": "JSON_OBJECT", "JsonArrayConstructor": "JSON_ARRAY",
	"JsonArrayQueryConstructor": "JSON_ARRAY", "JsonObjectAgg": "JSON_OBJECTAGG", "JsonArrayAgg": "JSON_ARRAYAGG",
	"JsonValueExpr": "JSON value expression", "NamedArgExpr": "named argument", "FuncCall": "function call",
	"AExpr": "operator", "ColumnRef": "column reference", "AConst": "constant", "BoolExpr": "AND/OR/NOT",
	"AStar": "*", "FieldSelect": "field selection", "NextValueExpr": "nextval",
}

// ObjectName is the SQL name of a kind of object: MATERIALIZED VIEW for
// OBJECT_MATVIEW, FOREIGN TABLE for OBJECT_FOREIGN_TABLE.
func ObjectName(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_MATVIEW:
		return "MATERIALIZED VIEW"
	case pg.ObjectType_OBJECT_FDW:
		return "FOREIGN DATA WRAPPER"
	case pg.ObjectType_OBJECT_FOREIGN_SERVER:
		return "SERVER"
	case pg.ObjectType_OBJECT_STATISTIC_EXT:
		return "STATISTICS"
	case pg.ObjectType_OBJECT_TABCONSTRAINT:
		return "CONSTRAINT"
	case pg.ObjectType_OBJECT_DOMCONSTRAINT:
		return "DOMAIN CONSTRAINT"
	case pg.ObjectType_OBJECT_TSCONFIGURATION:
		return "TEXT SEARCH CONFIGURATION"
	case pg.ObjectType_OBJECT_TSDICTIONARY:
		return "TEXT SEARCH DICTIONARY"
	case pg.ObjectType_OBJECT_TSPARSER:
		return "TEXT SEARCH PARSER"
	case pg.ObjectType_OBJECT_TSTEMPLATE:
		return "TEXT SEARCH TEMPLATE"
	case pg.ObjectType_OBJECT_OPCLASS:
		return "OPERATOR CLASS"
	case pg.ObjectType_OBJECT_OPFAMILY:
		return "OPERATOR FAMILY"
	case pg.ObjectType_OBJECT_LARGEOBJECT:
		return "LARGE OBJECT"
	case pg.ObjectType_OBJECT_DEFACL:
		return "DEFAULT PRIVILEGES"
	case pg.ObjectType_OBJECT_AMOP:
		return "OPERATOR OF ACCESS METHOD"
	case pg.ObjectType_OBJECT_AMPROC:
		return "FUNCTION OF ACCESS METHOD"
	}
	s := strings.TrimPrefix(t.String(), "OBJECT_")
	return strings.ReplaceAll(s, "_", " ")
}

// ConstraintName is the SQL of a kind of column or table constraint.
func ConstraintName(t pg.ConstrType) string {
	switch t {
	case pg.ConstrType_CONSTR_NOTNULL:
		return "NOT NULL"
	case pg.ConstrType_CONSTR_IDENTITY:
		return "GENERATED AS IDENTITY"
	case pg.ConstrType_CONSTR_GENERATED:
		return "GENERATED ALWAYS AS"
	case pg.ConstrType_CONSTR_PRIMARY:
		return "PRIMARY KEY"
	case pg.ConstrType_CONSTR_EXCLUSION:
		return "EXCLUDE"
	case pg.ConstrType_CONSTR_FOREIGN:
		return "REFERENCES"
	case pg.ConstrType_CONSTR_ATTR_DEFERRABLE:
		return "DEFERRABLE"
	case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
		return "NOT DEFERRABLE"
	case pg.ConstrType_CONSTR_ATTR_DEFERRED:
		return "INITIALLY DEFERRED"
	case pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
		return "INITIALLY IMMEDIATE"
	}
	return strings.TrimPrefix(t.String(), "CONSTR_")
}

// typeName is the parser's name for n's node type, without the Go
// package and wrapper: "RowExpr" for *pg_query.Node_RowExpr. It is a map
// key only, never shown.
func typeName(n *pg.Node) string {
	if n == nil || n.Node == nil {
		return ""
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_")
}

// NodeLocation is the byte offset in the query where n begins, or -1 when
// its node type has no location.
func NodeLocation(n *pg.Node) int32 {
	if n == nil || n.Node == nil {
		return -1
	}
	v := reflect.ValueOf(n.Node)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return -1
		}
		v = v.Elem()
	}
	// The wrapper (Node_RowExpr) holds one field, the message.
	if v.Kind() == reflect.Struct && v.NumField() == 1 {
		v = v.Field(0)
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return -1
			}
			v = v.Elem()
		}
	}
	if v.Kind() != reflect.Struct {
		return -1
	}
	f := v.FieldByName("Location")
	if !f.IsValid() || f.Kind() != reflect.Int32 {
		return -1
	}
	return int32(f.Int())
}

// AlterTableActionName is the SQL of an ALTER TABLE action: ADD COLUMN,
// ALTER COLUMN … TYPE.
func AlterTableActionName(t pg.AlterTableType) string {
	if name, ok := alterTableActions[t]; ok {
		return name
	}
	return "this ALTER TABLE action"
}

var alterTableActions = map[pg.AlterTableType]string{
	pg.AlterTableType_AT_AddColumn:                 "ADD COLUMN",
	pg.AlterTableType_AT_ColumnDefault:             "ALTER COLUMN … SET/DROP DEFAULT",
	pg.AlterTableType_AT_DropNotNull:               "ALTER COLUMN … DROP NOT NULL",
	pg.AlterTableType_AT_SetNotNull:                "ALTER COLUMN … SET NOT NULL",
	pg.AlterTableType_AT_DropExpression:            "ALTER COLUMN … DROP EXPRESSION",
	pg.AlterTableType_AT_SetStatistics:             "ALTER COLUMN … SET STATISTICS",
	pg.AlterTableType_AT_SetOptions:                "ALTER COLUMN … SET (…)",
	pg.AlterTableType_AT_ResetOptions:              "ALTER COLUMN … RESET (…)",
	pg.AlterTableType_AT_SetStorage:                "ALTER COLUMN … SET STORAGE",
	pg.AlterTableType_AT_SetCompression:            "ALTER COLUMN … SET COMPRESSION",
	pg.AlterTableType_AT_DropColumn:                "DROP COLUMN",
	pg.AlterTableType_AT_AddConstraint:             "ADD CONSTRAINT",
	pg.AlterTableType_AT_AlterConstraint:           "ALTER CONSTRAINT",
	pg.AlterTableType_AT_ValidateConstraint:        "VALIDATE CONSTRAINT",
	pg.AlterTableType_AT_DropConstraint:            "DROP CONSTRAINT",
	pg.AlterTableType_AT_AlterColumnType:           "ALTER COLUMN … TYPE",
	pg.AlterTableType_AT_ChangeOwner:               "OWNER TO",
	pg.AlterTableType_AT_ClusterOn:                 "CLUSTER ON",
	pg.AlterTableType_AT_DropCluster:               "SET WITHOUT CLUSTER",
	pg.AlterTableType_AT_SetLogged:                 "SET LOGGED",
	pg.AlterTableType_AT_SetUnLogged:               "SET UNLOGGED",
	pg.AlterTableType_AT_SetAccessMethod:           "SET ACCESS METHOD",
	pg.AlterTableType_AT_SetTableSpace:             "SET TABLESPACE",
	pg.AlterTableType_AT_SetRelOptions:             "SET (…)",
	pg.AlterTableType_AT_ResetRelOptions:           "RESET (…)",
	pg.AlterTableType_AT_EnableTrig:                "ENABLE TRIGGER",
	pg.AlterTableType_AT_DisableTrig:               "DISABLE TRIGGER",
	pg.AlterTableType_AT_EnableRule:                "ENABLE RULE",
	pg.AlterTableType_AT_DisableRule:               "DISABLE RULE",
	pg.AlterTableType_AT_AddInherit:                "INHERIT",
	pg.AlterTableType_AT_DropInherit:               "NO INHERIT",
	pg.AlterTableType_AT_AddOf:                     "OF",
	pg.AlterTableType_AT_DropOf:                    "NOT OF",
	pg.AlterTableType_AT_ReplicaIdentity:           "REPLICA IDENTITY",
	pg.AlterTableType_AT_EnableRowSecurity:         "ENABLE ROW LEVEL SECURITY",
	pg.AlterTableType_AT_DisableRowSecurity:        "DISABLE ROW LEVEL SECURITY",
	pg.AlterTableType_AT_ForceRowSecurity:          "FORCE ROW LEVEL SECURITY",
	pg.AlterTableType_AT_NoForceRowSecurity:        "NO FORCE ROW LEVEL SECURITY",
	pg.AlterTableType_AT_AttachPartition:           "ATTACH PARTITION",
	pg.AlterTableType_AT_DetachPartition:           "DETACH PARTITION",
	pg.AlterTableType_AT_AddIdentity:               "ALTER COLUMN … ADD GENERATED AS IDENTITY",
	pg.AlterTableType_AT_SetIdentity:               "ALTER COLUMN … SET GENERATED",
	pg.AlterTableType_AT_DropIdentity:              "ALTER COLUMN … DROP IDENTITY",
	pg.AlterTableType_AT_GenericOptions:            "OPTIONS (…)",
	pg.AlterTableType_AT_AlterColumnGenericOptions: "ALTER COLUMN … OPTIONS (…)",
}
