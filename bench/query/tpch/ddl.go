package main

import (
	"fmt"
	"strings"
)

// ddl is the TPC-H schema (specification clause 1.4), money and quantities
// as DECIMAL(15,2), dates as DATE, identifiers as integers (bigint for the
// keys that pass 2^31 at large scale factors), without constraints: they
// are added to PostgreSQL after its load (pgIndexes).
var ddl = map[string]string{
	"region": `CREATE TABLE region (r_regionkey integer NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152))`,
	"nation": `CREATE TABLE nation (n_nationkey integer NOT NULL, n_name char(25) NOT NULL, n_regionkey integer NOT NULL, n_comment varchar(152))`,
	"supplier": `CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL,
  s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL, s_comment varchar(101) NOT NULL)`,
	"customer": `CREATE TABLE customer (c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
  c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL, c_mktsegment char(10) NOT NULL,
  c_comment varchar(117) NOT NULL)`,
	"part": `CREATE TABLE part (p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL,
  p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, p_container char(10) NOT NULL,
  p_retailprice decimal(15,2) NOT NULL, p_comment varchar(23) NOT NULL)`,
	"partsupp": `CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,
  ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL)`,
	"orders": `CREATE TABLE orders (o_orderkey bigint NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL,
  o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL,
  o_clerk char(15) NOT NULL, o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL)`,
	"lineitem": `CREATE TABLE lineitem (l_orderkey bigint NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
  l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL, l_extendedprice decimal(15,2) NOT NULL,
  l_discount decimal(15,2) NOT NULL, l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL,
  l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL)`,
}

// pgIndexes are the primary keys and the indexes on foreign keys
// (clause 1.4.2) that an administrator of the PostgreSQL side gives it;
// a foreign key that a primary key's first column covers needs none.
var pgIndexes = []string{
	`ALTER TABLE region ADD PRIMARY KEY (r_regionkey)`,
	`ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)`,
	`ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)`,
	`ALTER TABLE customer ADD PRIMARY KEY (c_custkey)`,
	`ALTER TABLE part ADD PRIMARY KEY (p_partkey)`,
	`ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)`,
	`ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)`,
	`ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)`,
	`CREATE INDEX ON nation (n_regionkey)`,
	`CREATE INDEX ON supplier (s_nationkey)`,
	`CREATE INDEX ON customer (c_nationkey)`,
	`CREATE INDEX ON partsupp (ps_suppkey)`,
	`CREATE INDEX ON orders (o_custkey)`,
	`CREATE INDEX ON lineitem (l_partkey, l_suppkey)`,
	`CREATE INDEX ON lineitem (l_suppkey)`,
}

// duckTypes are the columns' types for DuckDB's views over Loam's Parquet
// files: whatever physical type Loam chose for a column, DuckDB computes
// on the declared one. CHAR(n) columns are VARCHAR without the padding
// Loam stores (DuckDB has no blank-padded type; its own TPC-H uses VARCHAR).
var duckTypes = map[string][][2]string{
	"region":   {{"r_regionkey", "INTEGER"}, {"r_name", "CHAR"}, {"r_comment", "VARCHAR"}},
	"nation":   {{"n_nationkey", "INTEGER"}, {"n_name", "CHAR"}, {"n_regionkey", "INTEGER"}, {"n_comment", "VARCHAR"}},
	"supplier": {{"s_suppkey", "INTEGER"}, {"s_name", "CHAR"}, {"s_address", "VARCHAR"}, {"s_nationkey", "INTEGER"}, {"s_phone", "CHAR"}, {"s_acctbal", "DECIMAL(15,2)"}, {"s_comment", "VARCHAR"}},
	"customer": {{"c_custkey", "INTEGER"}, {"c_name", "VARCHAR"}, {"c_address", "VARCHAR"}, {"c_nationkey", "INTEGER"}, {"c_phone", "CHAR"}, {"c_acctbal", "DECIMAL(15,2)"}, {"c_mktsegment", "CHAR"}, {"c_comment", "VARCHAR"}},
	"part":     {{"p_partkey", "INTEGER"}, {"p_name", "VARCHAR"}, {"p_mfgr", "CHAR"}, {"p_brand", "CHAR"}, {"p_type", "VARCHAR"}, {"p_size", "INTEGER"}, {"p_container", "CHAR"}, {"p_retailprice", "DECIMAL(15,2)"}, {"p_comment", "VARCHAR"}},
	"partsupp": {{"ps_partkey", "INTEGER"}, {"ps_suppkey", "INTEGER"}, {"ps_availqty", "INTEGER"}, {"ps_supplycost", "DECIMAL(15,2)"}, {"ps_comment", "VARCHAR"}},
	"orders":   {{"o_orderkey", "BIGINT"}, {"o_custkey", "INTEGER"}, {"o_orderstatus", "CHAR"}, {"o_totalprice", "DECIMAL(15,2)"}, {"o_orderdate", "DATE"}, {"o_orderpriority", "CHAR"}, {"o_clerk", "CHAR"}, {"o_shippriority", "INTEGER"}, {"o_comment", "VARCHAR"}},
	"lineitem": {{"l_orderkey", "BIGINT"}, {"l_partkey", "INTEGER"}, {"l_suppkey", "INTEGER"}, {"l_linenumber", "INTEGER"}, {"l_quantity", "DECIMAL(15,2)"}, {"l_extendedprice", "DECIMAL(15,2)"}, {"l_discount", "DECIMAL(15,2)"}, {"l_tax", "DECIMAL(15,2)"}, {"l_returnflag", "CHAR"}, {"l_linestatus", "CHAR"}, {"l_shipdate", "DATE"}, {"l_commitdate", "DATE"}, {"l_receiptdate", "DATE"}, {"l_shipinstruct", "CHAR"}, {"l_shipmode", "CHAR"}, {"l_comment", "VARCHAR"}},
}

// duckView is DuckDB's view of a table: the Parquet files of the
// table's current snapshot in Loam's warehouse, read in place.
func duckView(table string, files []string) string {
	cols := ""
	for i, c := range duckTypes[table] {
		if i > 0 {
			cols += ", "
		}
		if c[1] == "CHAR" {
			cols += fmt.Sprintf("rtrim(CAST(%s AS VARCHAR)) AS %s", c[0], c[0])
		} else {
			cols += fmt.Sprintf("CAST(%s AS %s) AS %s", c[0], c[1], c[0])
		}
	}
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
	}
	return fmt.Sprintf("CREATE VIEW %s AS SELECT %s FROM read_parquet([%s], hive_partitioning = false)",
		table, cols, strings.Join(quoted, ", "))
}
