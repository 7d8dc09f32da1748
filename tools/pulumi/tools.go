//go:build tools

// Package tools records the Pulumi CLI as a dependency of this build module.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
