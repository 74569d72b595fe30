package physical

import "strings"

// Annotation is what EXPLAIN adds to a node beyond the plan: ANALYZE's
// counts after its heading, and details that need the table's metadata.
type Annotation struct {
	Suffix  string
	Details []string
}

// Render lays the plan under root out as PostgreSQL lays out EXPLAIN
// text: one line per node, "->" for inputs, details indented beneath.
// annotate, when not nil, adds to each node.
func Render(root Node, annotate func(Node) Annotation) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		ex := n.Explain()
		var a Annotation
		if annotate != nil {
			a = annotate(n)
		}
		head := ex.Name + a.Suffix
		if depth > 0 {
			lines = append(lines, strings.Repeat(" ", (depth-1)*6+2)+"->  "+head)
		} else {
			lines = append(lines, head)
		}
		for _, d := range append(ex.Details, a.Details...) {
			lines = append(lines, strings.Repeat(" ", depth*6+2)+d)
		}
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return lines
}
