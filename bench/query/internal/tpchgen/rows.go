package tpchgen

import "github.com/pingcap/go-tpc/tpch/dbgen"

// The rows in the columns' order of the standard DDL (ddl.go), as dbgen's
// .tbl files have them; money in dollars with two decimals.

func supplierRow(s *dbgen.Supp) []string {
	return []string{itoa(s.SuppKey), s.Name, s.Address, itoa(s.NationCode), s.Phone, dbgen.FmtMoney(s.Acctbal), s.Comment}
}

func customerRow(c *dbgen.Cust) []string {
	return []string{itoa(c.CustKey), c.Name, c.Address, itoa(c.NationCode), c.Phone, dbgen.FmtMoney(c.Acctbal), c.MktSegment, c.Comment}
}

func partRow(p *dbgen.Part) []string {
	return []string{itoa(p.PartKey), p.Name, p.Mfgr, p.Brand, p.Type, itoa(p.Size), p.Container, dbgen.FmtMoney(p.RetailPrice), p.Comment}
}

func partsuppRow(ps *dbgen.PartSupp) []string {
	return []string{itoa(ps.PartKey), itoa(ps.SuppKey), itoa(ps.Qty), dbgen.FmtMoney(ps.SCost), ps.Comment}
}

func ordersRow(o *dbgen.Order) []string {
	return []string{itoa(o.OKey), itoa(o.CustKey), string(rune(o.Status)), dbgen.FmtMoney(o.TotalPrice), o.Date, o.OrderPriority, o.Clerk, itoa(o.ShipPriority), o.Comment}
}

func lineitemRow(l *dbgen.LineItem) []string {
	return []string{
		itoa(l.OKey), itoa(l.PartKey), itoa(l.SuppKey), itoa(l.LCnt), itoa(l.Quantity),
		dbgen.FmtMoney(l.EPrice), dbgen.FmtMoney(l.Discount), dbgen.FmtMoney(l.Tax),
		string(rune(l.RFlag)), string(rune(l.LStatus)), l.SDate, l.CDate, l.RDate,
		l.ShipInstruct, l.ShipMode, l.Comment,
	}
}
