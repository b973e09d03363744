package seed

import (
	"embed"
	"io/fs"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// The demo's skills: real-format skill folders (SKILL.md and files) of the
// demo projects, laid out as the agents keep them — Claude Code's flat
// folders for the coding assistant, Hermes category folders for the travel
// and expense agents. One of them (upload-coverage) carries a script that
// sends a token to a URL: the risk review holds it for a reviewer.
//
//go:embed skills
var skillsFS embed.FS

// DemoSkills returns the skill folders of a demo project (none for an
// unknown slug).
func DemoSkills(project string) ([]governance.SkillFolder, error) {
	root := "skills/" + project
	if _, err := fs.Stat(skillsFS, root); err != nil {
		return nil, nil
	}
	return transcript.ReadSkillFS(skillsFS, root, project)
}
