package syntax

/*
#include <stdint.h>
#include <stdbool.h>

// Declarations of the tree-sitter C API (lib/include/tree_sitter/api.h),
// compiled into the binary by github.com/smacker/go-tree-sitter.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern uint16_t ts_node_symbol(TSNode);
extern bool ts_node_is_named(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern TSPoint ts_node_end_point(TSNode);

#define NONE 0xFFFFFFFFu

typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	uint32_t parent, first_child, next_sibling;
	uint16_t symbol, field;
	uint32_t named;
} flat_node;

// flatten writes the named nodes of the tree under root into out in
// preorder and returns their number. Anonymous nodes (punctuation and
// keywords, always leaves) are left out. When out is too small it returns
// the number needed and the caller retries with a larger buffer.
static uint32_t flatten(TSNode root, flat_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0, parent = NONE, prev = NONE;
	bool overflow = false;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		bool named = ts_node_is_named(node);
		uint32_t idx = NONE;
		if (named) {
			idx = n++;
			if (!overflow && idx >= cap) {
				overflow = true;
			}
			if (!overflow) {
				TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
				flat_node *r = &out[idx];
				r->start_byte = ts_node_start_byte(node);
				r->end_byte = ts_node_end_byte(node);
				r->start_row = s.row; r->start_col = s.column;
				r->end_row = e.row; r->end_col = e.column;
				r->parent = parent; r->first_child = NONE; r->next_sibling = NONE;
				r->symbol = ts_node_symbol(node);
				r->field = ts_tree_cursor_current_field_id(&c);
				r->named = 1;
				if (prev != NONE) out[prev].next_sibling = idx;
				else if (parent != NONE) out[parent].first_child = idx;
			}
			if (ts_tree_cursor_goto_first_child(&c)) {
				parent = idx; prev = NONE;
				continue;
			}
			prev = idx;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
			if (!overflow) {
				prev = parent;
				parent = out[parent].parent;
			}
		}
	}
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

const noNode = 0xFFFFFFFF

// flat is the named nodes of a syntax tree, copied out of tree-sitter in
// one C call, so that walking it costs no cgo call and no allocation per
// node.
type flat struct {
	g     *grammar
	recs  []C.flat_node
	nodes []node
}

// node is one node of a flat tree. Its methods mirror go-tree-sitter's Node.
type node struct {
	f *flat
	i uint32
}

// load replaces f's content with tree's nodes, reusing f's buffers.
func (f *flat) load(g *grammar, tree *sitter.Tree, srcLen int) {
	f.g = g
	root := tree.RootNode()
	// A sitter.Node starts with its C TSNode (go-tree-sitter bindings.go).
	cn := *(*C.TSNode)(unsafe.Pointer(root))
	// About one named node per 8 bytes of source; retry with the exact
	// count when a file is denser.
	want := max(srcLen/6+64, len(f.recs))
	for {
		if cap(f.recs) < want {
			f.recs = make([]C.flat_node, want)
		}
		f.recs = f.recs[:cap(f.recs)]
		n := int(C.flatten(cn, &f.recs[0], C.uint32_t(len(f.recs))))
		if n <= len(f.recs) {
			f.recs = f.recs[:n]
			break
		}
		want = n
	}
	if cap(f.nodes) < len(f.recs) {
		f.nodes = make([]node, len(f.recs), len(f.recs)+len(f.recs)/4)
	}
	f.nodes = f.nodes[:len(f.recs)]
	for i := range f.nodes {
		f.nodes[i] = node{f: f, i: uint32(i)}
	}
}

func (f *flat) root() *node { return &f.nodes[0] }

func (f *flat) at(i C.uint32_t) *node {
	if uint32(i) == noNode {
		return nil
	}
	return &f.nodes[i]
}

func (n *node) rec() *C.flat_node { return &n.f.recs[n.i] }

func (n *node) StartByte() uint32 { return uint32(n.rec().start_byte) }
func (n *node) EndByte() uint32   { return uint32(n.rec().end_byte) }
func (n *node) Symbol() uint16    { return uint16(n.rec().symbol) }
func (n *node) IsNamed() bool     { return n.rec().named != 0 }
func (n *node) Parent() *node     { return n.f.at(n.rec().parent) }

// Type returns the node's type name.
func (n *node) Type() string {
	if s := int(n.rec().symbol); s < len(n.f.g.names) {
		return n.f.g.names[s]
	}
	return "ERROR" // ts_builtin_sym_error is (TSSymbol)-1
}

// field returns the name of the field n is stored under in its parent.
func (n *node) field() string { return n.f.g.fields[n.rec().field] }

func (n *node) firstChild() *node  { return n.f.at(n.rec().first_child) }
func (n *node) nextSibling() *node { return n.f.at(n.rec().next_sibling) }

// ChildCount returns the number of children (all named: a flat tree has
// no anonymous nodes).
func (n *node) ChildCount() int {
	k := 0
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		k++
	}
	return k
}

// Child returns the i-th child.
func (n *node) Child(i int) *node {
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if i == 0 {
			return c
		}
		i--
	}
	return nil
}

// NamedChildCount returns the number of named children.
func (n *node) NamedChildCount() int {
	k := 0
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if c.IsNamed() {
			k++
		}
	}
	return k
}

// NamedChild returns the i-th named child.
func (n *node) NamedChild(i int) *node {
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if !c.IsNamed() {
			continue
		}
		if i == 0 {
			return c
		}
		i--
	}
	return nil
}

// ChildByFieldName returns the first child stored under a field name.
func (n *node) ChildByFieldName(name string) *node {
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if c.field() == name {
			return c
		}
	}
	return nil
}
