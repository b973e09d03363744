// Package governance is Mnemo's domain: the types of the four memory layers
// (raw events, consolidated episodes and candidates, semantic rules, working
// recall), their validation, error codes, and the pure rules that govern them
// (write gate, promotion, rule lifecycle, recall scoring and packing).
//
// It imports no other package of the project, no web framework and no
// database driver; store/ implements its interfaces with SQLite.
package governance
