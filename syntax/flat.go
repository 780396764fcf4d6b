package syntax

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>

// Declarations of the tree-sitter C API (lib/include/tree_sitter/api.h),
// compiled into the binary by github.com/smacker/go-tree-sitter.
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
extern TSParser *ts_parser_new(void);
extern void ts_parser_delete(TSParser *);
extern bool ts_parser_set_language(TSParser *, const TSLanguage *);
extern void ts_parser_set_timeout_micros(TSParser *, uint64_t);
extern TSTree *ts_parser_parse_string(TSParser *, const TSTree *, const char *, uint32_t);
extern TSNode ts_tree_root_node(const TSTree *);
extern void ts_tree_delete(TSTree *);
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
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

// An arena is the memory of one parse: the parser, its stacks and the
// tree are bump-allocated in a reserved region and dropped together when
// the parse is done, instead of being freed node by node. The region is
// reserved once per extractor; pages are only committed when touched.
typedef struct {
	char *base;
	size_t size;   // bytes reserved
	size_t used;   // bytes handed out in the current parse
	size_t peak;   // the most any parse used
	size_t spills; // allocations that did not fit and went to malloc
	flat_node *out; // the flattened tree of the last parse (malloc)
	uint32_t cap;
} arena;

// The arena of the parse running on this thread, if any. A parse is one
// C call, so it never moves between threads.
static __thread arena *current_arena;

// Each arena block starts 16 bytes after its header, which holds the size
// asked for, so that realloc knows how much to copy.
enum { HDR = 16 };

static void *checked(void *p, size_t n) {
	if (p == NULL && n > 0) {
		fprintf(stderr, "tree-sitter failed to allocate %zu bytes\n", n);
		abort();
	}
	return p;
}

static bool in_arena(const arena *a, const void *p) {
	return a != NULL && (const char *)p >= a->base && (const char *)p < a->base + a->size;
}

static void *arena_malloc(size_t n) {
	arena *a = current_arena;
	if (a != NULL) {
		size_t need = (n + HDR + 15) & ~(size_t)15;
		if (need >= n && a->used + need <= a->size) {
			char *p = a->base + a->used;
			a->used += need;
			if (a->used > a->peak) a->peak = a->used;
			*(size_t *)p = n;
			return p + HDR;
		}
		a->spills++;
	}
	return checked(malloc(n), n);
}

static void *arena_calloc(size_t count, size_t size) {
	if (current_arena == NULL) return checked(calloc(count, size), count * size);
	if (size != 0 && count > SIZE_MAX / size) return checked(NULL, SIZE_MAX);
	size_t n = count * size;
	void *p = arena_malloc(n);
	memset(p, 0, n);
	return p;
}

static void *arena_realloc(void *p, size_t n) {
	arena *a = current_arena;
	if (p == NULL) return arena_malloc(n);
	if (!in_arena(a, p)) return checked(realloc(p, n), n);
	size_t *hdr = (size_t *)((char *)p - HDR);
	size_t old = *hdr;
	if (n <= old) {
		return p;
	}
	// The newest block grows in place.
	char *end = (char *)p + ((old + 15) & ~(size_t)15);
	size_t grown = (n + 15) & ~(size_t)15;
	if (end == a->base + a->used && (char *)p + grown <= a->base + a->size) {
		a->used = (size_t)((char *)p + grown - a->base);
		if (a->used > a->peak) a->peak = a->used;
		*hdr = n;
		return p;
	}
	void *q = arena_malloc(n);
	memcpy(q, p, old);
	return q;
}

// Blocks in the arena are dropped with it; the rest were malloc'd.
static void arena_free(void *p) {
	if (!in_arena(current_arena, p)) free(p);
}

// install_allocator makes tree-sitter allocate through the arena of the
// calling thread's parse, if any, and through malloc otherwise, so memory
// allocated before or outside an arena is still freed by free.
static void install_allocator(void) {
	ts_set_allocator(arena_malloc, arena_calloc, arena_realloc, arena_free);
}

static arena *arena_new(size_t size) {
	arena *a = calloc(1, sizeof(arena));
	if (a == NULL) return NULL;
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base != MAP_FAILED) {
		a->base = base;
		a->size = size;
	}
	// Without a region (the system refused the reservation) every
	// allocation goes to malloc.
	return a;
}

static void arena_delete(arena *a) {
	if (a->base != NULL) munmap(a->base, a->size);
	free(a->out);
	free(a);
}

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

// Pages of the arena beyond this are given back after a parse that used them.
#define ARENA_KEEP (64u << 20)

// parse_flat parses src with a new parser in the arena, flattens the tree
// into a->out (unless copy_out is false) and drops the parser and the tree
// with the arena. It returns the number of nodes (0 without copy_out), -1 when the parse did not finish within the
// timeout, or -2 when the parser refused the language.
static int64_t parse_flat(arena *a, const TSLanguage *lang, const char *src, uint32_t len, uint64_t timeout_micros, bool copy_out) {
	a->used = 0;
	size_t spills = a->spills;
	current_arena = a;
	TSParser *p = ts_parser_new();
	int64_t n = -2;
	if (ts_parser_set_language(p, lang)) {
		n = -1;
		ts_parser_set_timeout_micros(p, timeout_micros);
		TSTree *t = ts_parser_parse_string(p, NULL, src, len);
		if (t != NULL && !copy_out) {
			n = 0;
		} else if (t != NULL) {
			TSNode root = ts_tree_root_node(t);
			uint32_t guess = len / 6 + 64; // about one named node per 8 bytes of source
			if (a->cap < guess) {
				flat_node *out = realloc(a->out, (size_t)guess * sizeof(flat_node));
				if (out != NULL) {
					a->out = out;
					a->cap = guess;
				}
			}
			for (;;) {
				uint32_t k = flatten(root, a->out, a->cap);
				if (k <= a->cap) {
					n = k;
					break;
				}
				flat_node *grown = realloc(a->out, (size_t)k * sizeof(flat_node));
				if (grown == NULL) break;
				a->out = grown;
				a->cap = k;
			}
		}
		// The tree's nodes are dropped with the arena; those that did
		// not fit in it are freed by deleting the tree.
		if (t != NULL && a->spills != spills) ts_tree_delete(t);
	}
	// Deleting the parser lets a language's external scanner free its state.
	ts_parser_delete(p);
	current_arena = NULL;
	if (a->used > ARENA_KEEP) {
		madvise(a->base + ARENA_KEEP, a->used - ARENA_KEEP, MADV_DONTNEED);
	}
	a->used = 0;
	return n;
}
*/
import "C"

import (
	"errors"
	"sync"
	"time"
	"unsafe"
)

const noNode = 0xFFFFFFFF

// arenaReserve is the address space an Extractor reserves for its parses.
// Only the pages a parse touches take memory; a parse that needs more
// than the reserve takes the rest from malloc.
const arenaReserve = 256 << 20

// installAllocator routes tree-sitter's allocations through the arena of
// the parse running on the calling thread. The hook is process-wide and
// falls back to malloc outside a parse, so memory tree-sitter allocated
// before it was installed, or for callers that parse without an arena, is
// freed as before.
var installAllocator sync.Once

// Errors of flat.parse.
var (
	errParseTimeout = errors.New("tree-sitter: parse timed out")
	errLanguage     = errors.New("tree-sitter: the parser refused the grammar (ABI version mismatch)")
	errNoMemory     = errors.New("tree-sitter: out of memory")
)

// flat is the named nodes of a syntax tree, copied out of tree-sitter in
// the C call that parses the file, so that walking it costs no cgo call
// and no allocation per node.
type flat struct {
	g       *grammar
	arena   *C.arena
	reserve int       // bytes of address space for the arena (arenaReserve if zero)
	recs    []flatRec // the arena's output buffer (valid until the next parse) or records built in Go
	nodes   []node
}

// node is one node of a flat tree. Its methods mirror go-tree-sitter's Node.
type node struct {
	f *flat
	i uint32
}

// parse parses src with g and replaces f's content with the tree's named
// nodes. Nothing of the tree stays in tree-sitter afterwards.
func (f *flat) parse(g *grammar, src []byte, timeout time.Duration) error {
	return f.parseAndCopy(g, src, timeout, true)
}

// parseAndCopy parses src with g and, when copyOut is set, replaces f's
// content with the tree's named nodes; otherwise f is left empty.
func (f *flat) parseAndCopy(g *grammar, src []byte, timeout time.Duration, copyOut bool) error {
	installAllocator.Do(func() { C.install_allocator() })
	if f.arena == nil {
		reserve := f.reserve
		if reserve <= 0 {
			reserve = arenaReserve
		}
		if f.arena = C.arena_new(C.size_t(reserve)); f.arena == nil {
			return errNoMemory
		}
	}
	f.g = g
	var text *C.char
	if len(src) > 0 {
		text = (*C.char)(unsafe.Pointer(&src[0]))
	}
	n := C.parse_flat(f.arena, g.cLanguage(), text, C.uint32_t(len(src)), C.uint64_t(timeout.Microseconds()), C.bool(copyOut))
	switch {
	case n == -1:
		return errParseTimeout
	case n < 0:
		return errLanguage
	}
	f.setRecs(unsafe.Slice((*flatRec)(unsafe.Pointer(f.arena.out)), int(n)))
	return nil
}

// flatRec is one record of a flat tree. Its layout is C's flat_node, so
// the records tree-sitter's flatten writes are read in place, and records
// built in Go (see goFlat) are read by the same node methods.
type flatRec struct {
	startByte, endByte                 uint32
	startRow, startCol, endRow, endCol uint32
	parent, firstChild, nextSibling    uint32
	symbol, field                      uint16
	named                              uint32
}

// Layout checks: flatRec must be C.flat_node, field for field.
var (
	_ [unsafe.Sizeof(flatRec{}) - unsafe.Sizeof(C.flat_node{})]struct{}
	_ [unsafe.Sizeof(C.flat_node{}) - unsafe.Sizeof(flatRec{})]struct{}
	_ [unsafe.Offsetof(flatRec{}.symbol) - unsafe.Offsetof(C.flat_node{}.symbol)]struct{}
	_ [unsafe.Offsetof(C.flat_node{}.symbol) - unsafe.Offsetof(flatRec{}.symbol)]struct{}
	_ [unsafe.Offsetof(flatRec{}.named) - unsafe.Offsetof(C.flat_node{}.named)]struct{}
	_ [unsafe.Offsetof(C.flat_node{}.named) - unsafe.Offsetof(flatRec{}.named)]struct{}
)

// install replaces f's content with recs, a tree of g built in Go.
func (f *flat) install(g *grammar, recs []flatRec) {
	f.g = g
	f.setRecs(recs)
}

// setRecs makes recs f's records, with a node for each.
func (f *flat) setRecs(recs []flatRec) {
	f.recs = recs
	if cap(f.nodes) < len(f.recs) {
		f.nodes = make([]node, len(f.recs), len(f.recs)+len(f.recs)/4)
	}
	f.nodes = f.nodes[:len(f.recs)]
	for i := range f.nodes {
		f.nodes[i] = node{f: f, i: uint32(i)}
	}
}

// free releases the arena. f is unusable afterwards.
func (f *flat) free() {
	if f.arena != nil {
		C.arena_delete(f.arena)
		f.arena = nil
	}
	f.recs, f.nodes = nil, nil
}

// cLanguage returns g's TSLanguage pointer. A sitter.Language holds it as
// its first field (go-tree-sitter bindings.go).
func (g *grammar) cLanguage() *C.TSLanguage {
	return (*C.TSLanguage)(*(*unsafe.Pointer)(unsafe.Pointer(g.ts)))
}
func (f *flat) root() *node { return &f.nodes[0] }

func (f *flat) at(i uint32) *node {
	if i == noNode {
		return nil
	}
	return &f.nodes[i]
}

func (n *node) rec() *flatRec { return &n.f.recs[n.i] }

func (n *node) StartByte() uint32 { return n.rec().startByte }
func (n *node) EndByte() uint32   { return n.rec().endByte }
func (n *node) Symbol() uint16    { return n.rec().symbol }
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

func (n *node) firstChild() *node  { return n.f.at(n.rec().firstChild) }
func (n *node) nextSibling() *node { return n.f.at(n.rec().nextSibling) }

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
