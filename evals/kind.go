package evals

import (
	"context"
	"reflect"
	"slices"
	"strings"
)

// kindSpec is everything the engine knows of one case kind. Each kind lives
// in its own file (kind_<name>.go) with its spec, its validation and how it
// runs; kindSpecs below is the registry. A new kind is a new file, a line
// in kindSpecs and a row in README.md's kind table (TestKindsDocumented
// holds the README to the registry).
type kindSpec struct {
	kind Kind
	// fields are the YAML fields its cases may set besides the common ones
	// (id, kind, description, project, subject, timeout); any other field
	// set is reported as not applying to the kind.
	fields []string
	// shared: the cases read the suite's shared projects (the fixtures'
	// scratch projects or the live ones) and need a project and a task.
	shared bool
	// own: every case gets a scratch project of its own, removed when the
	// case ends, so it never changes live memory.
	own bool
	// validate checks the kind's own fields; alias reports a project alias
	// that names no fixture project (in scratch mode).
	validate func(v *validator, s *Suite, c *Case, id string, alias func(field, name string))
	// run executes a case and fills res (a non-empty Detail.Problems fails
	// it); an error makes the case an error.
	run func(e *engine, ctx context.Context, index int, c *Case, res *CaseResult) error
}

// kindSpecs is the registry of case kinds, in the order they are listed.
var kindSpecs = []*kindSpec{recallKind, isolationKind, sequenceKind, abKind, poisoningKind, skillSelectionKind, skillABKind}

// Kinds lists the case kinds a suite file may use.
var Kinds = kindNames()

func kindNames() []Kind {
	out := make([]Kind, len(kindSpecs))
	for i, k := range kindSpecs {
		out[i] = k.kind
	}
	return out
}

// specOf returns the spec of a kind, nil for an unknown kind.
func specOf(k Kind) *kindSpec {
	for _, s := range kindSpecs {
		if s.kind == k {
			return s
		}
	}
	return nil
}

// readsShared reports whether cases of kind k read the suite's shared projects.
func readsShared(k Kind) bool {
	s := specOf(k)
	return s != nil && s.shared
}

// ownsProject reports whether each case of kind k gets its own scratch project.
func ownsProject(k Kind) bool {
	s := specOf(k)
	return s != nil && s.own
}

// commonFields are the case fields every kind accepts.
var commonFields = []string{"id", "kind", "description", "project", "subject", "timeout"}

// setFields names the kind-specific YAML fields a case sets, read from the
// yaml tags of Case so a field added for a new kind is checked too.
func setFields(c *Case) []string {
	var out []string
	v, t := reflect.ValueOf(c).Elem(), reflect.TypeOf(*c)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" || name == "with_fixtures" || slices.Contains(commonFields, name) {
			continue
		}
		f := v.Field(i)
		set := !f.IsZero()
		if f.Kind() == reflect.Slice || f.Kind() == reflect.Map {
			set = f.Len() > 0
		}
		if set {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// kindsWithField names the kinds whose cases may set field, e.g.
// "sequence and poisoning".
func kindsWithField(field string) string {
	var names []string
	for _, k := range kindSpecs {
		if slices.Contains(k.fields, field) {
			names = append(names, string(k.kind))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
