package agentfile_test

// The agent files read rules through the write gate's masker, which the
// gate registers when it is loaded.
import _ "github.com/mnemo-console/mnemo/governance/gate"
