package app

import (
	"context"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
)

// ProjectRef names the project a use case works in: by its slug (what a
// page, a form or the CLI knows) or by its id (what an agent surface knows
// of its token). Only the two constructors make one, so neither can be
// taken for the other.
type ProjectRef struct {
	slug string
	id   int64
}

// ProjectSlug names a project by its slug.
func ProjectSlug(slug string) ProjectRef { return ProjectRef{slug: slug} }

// ProjectID names a project by its id.
func ProjectID(id int64) ProjectRef { return ProjectRef{id: id} }

// String is the slug, or "#id" for a reference by id.
func (r ProjectRef) String() string {
	if r.id != 0 {
		return "#" + strconv.FormatInt(r.id, 10)
	}
	return r.slug
}

// find loads the project named (ENOTFOUND for a zero reference).
func (r ProjectRef) find(ctx context.Context, s ProjectStore) (*governance.Project, error) {
	switch {
	case r.id != 0:
		return s.FindProjectByID(ctx, r.id)
	case r.slug != "":
		return s.FindProjectBySlug(ctx, r.slug)
	}
	return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
}
