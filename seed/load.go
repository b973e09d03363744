package seed

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// Store is what seeding needs from the store: the demo data is built only
// through it.
type Store interface {
	FindAccounts(ctx context.Context) ([]*governance.Account, error)
	FindProjects(ctx context.Context) ([]*governance.Project, error)
	CreateAccount(ctx context.Context, a *governance.Account) error
	CreateProject(ctx context.Context, p *governance.Project) error
	IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
}

// Credential is a generated demo account, printed once on first start.
type Credential struct {
	Username string
	Password string
	Role     string
}

// Options say how to create the demo accounts.
type Options struct {
	// Hash hashes a password (auth.HashPassword).
	Hash func(password string) (string, error)
	// Generate makes a new random password (auth.GeneratePassword).
	Generate func() string
	// Demo loads the demo projects and events; without it only the admin is created.
	Demo bool
	// Skills, when set, imports a demo project's skill folders (app.Skills:
	// validated, reviewed, the clean ones activated).
	Skills func(ctx context.Context, project string, folders []governance.SkillFolder) error
}

// IsEmpty reports whether the database has neither accounts nor projects.
func IsEmpty(ctx context.Context, st Store) (bool, error) {
	accounts, err := st.FindAccounts(ctx)
	if err != nil {
		return false, err
	}
	projects, err := st.FindProjects(ctx)
	if err != nil {
		return false, err
	}
	return len(accounts) == 0 && len(projects) == 0, nil
}

// Load fills an empty database: an admin account and, with opts.Demo, the
// demo projects and their events plus a reviewer and a member of the travel
// family. A database that is not empty is left alone (nil credentials), so
// a second start neither duplicates nor resets anything.
func Load(ctx context.Context, st Store, opts Options) ([]Credential, error) {
	empty, err := IsEmpty(ctx, st)
	if err != nil || !empty {
		return nil, err
	}
	var creds []Credential
	account := func(name, role string, admin bool, ms ...governance.Membership) error {
		pw := opts.Generate()
		hash, err := opts.Hash(pw)
		if err != nil {
			return err
		}
		if err := st.CreateAccount(ctx, &governance.Account{Username: name, PasswordHash: hash, IsAdmin: admin, Memberships: ms}); err != nil {
			return fmt.Errorf("seed: account %s: %w", name, err)
		}
		creds = append(creds, Credential{Username: name, Password: pw, Role: role})
		return nil
	}
	if err := account("admin", "admin", true); err != nil {
		return nil, err
	}
	if !opts.Demo {
		return creds, nil
	}
	demo, err := DemoProjects()
	if err != nil {
		return nil, err
	}
	var travel *governance.Project
	var travelSubject string
	for _, d := range demo {
		p := &governance.Project{Slug: d.Slug, Name: d.Name, Description: d.Description}
		if err := st.CreateProject(ctx, p); err != nil {
			return nil, fmt.Errorf("seed: project %s: %w", d.Slug, err)
		}
		if _, err := st.IngestEvents(ctx, p.ID, d.Events); err != nil {
			return nil, fmt.Errorf("seed: events of %s: %w", d.Slug, err)
		}
		if opts.Skills != nil {
			folders, err := DemoSkills(d.Slug)
			if err != nil {
				return nil, fmt.Errorf("seed: skills of %s: %w", d.Slug, err)
			}
			if len(folders) > 0 {
				if err := opts.Skills(ctx, d.Slug, folders); err != nil {
					return nil, fmt.Errorf("seed: skills of %s: %w", d.Slug, err)
				}
			}
		}
		if d.Slug == TravelProject {
			travel = p
			if len(d.SubjectIDs) > 0 {
				travelSubject = d.SubjectIDs[0]
			}
		}
	}
	if travel == nil || travelSubject == "" {
		return nil, fmt.Errorf("seed: the demo has no %s project with a subject", TravelProject)
	}
	if err := account("reviewer", "reviewer of "+TravelProject, false,
		governance.Membership{ProjectID: travel.ID, Role: governance.ProjectReviewer}); err != nil {
		return nil, err
	}
	if err := account(travelSubject, "member ("+travelSubject+" in "+TravelProject+")", false,
		governance.Membership{ProjectID: travel.ID, Role: governance.ProjectMember, SubjectID: travelSubject}); err != nil {
		return nil, err
	}
	return creds, nil
}

// TravelProject is the slug of the demo's main project.
const TravelProject = "travel-agent"
