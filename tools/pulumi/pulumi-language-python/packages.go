package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

// pluginJSONPaths finds, for each installed distribution named as an argument, the
// pulumi-plugin.json of its module (empty when none): the file `pulumi package gen-sdk` writes
// into a generated SDK, naming the provider plugin it needs. The same script as upstream's.
const pluginJSONPaths = `import importlib.metadata, importlib.util, os, sys, json
result = {}
for pkg_name in sys.argv[1:]:
	try:
		dist = importlib.metadata.distribution(pkg_name)
		module = dist.metadata['Name'].replace('-', '_')
		spec = importlib.util.find_spec(module)
		locs = list(spec.submodule_search_locations or []) if spec else []
		found = [p for l in locs for p in [os.path.join(str(l), 'pulumi-plugin.json')] if os.path.isfile(p)]
		result[pkg_name] = found[0] if found else ''
	except Exception:
		result[pkg_name] = ''
print(json.dumps(result))`

// pulumiPackages are the resource plugins the program's installed SDKs declare in their
// pulumi-plugin.json, for the engine to load before the program runs (as upstream reports them).
// A package without the file is reported by its `pulumi-` name, as upstream does for SDKs older
// than the file; `pulumi` itself and the policy SDKs have no plugin.
func pulumiPackages(ctx context.Context, tc toolchain.Toolchain) ([]*pulumirpc.PackageDependency, error) {
	installed, err := tc.ListPackages(ctx, true)
	if err != nil {
		return nil, err
	}
	names := []string{"-c", pluginJSONPaths}
	for _, pkg := range installed {
		names = append(names, pkg.Name)
	}
	cmd, err := tc.Command(ctx, names...)
	if err != nil {
		return nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("finding the pulumi-plugin.json of the installed packages: %w", err)
	}
	var paths map[string]string
	if err := json.Unmarshal(out, &paths); err != nil {
		return nil, fmt.Errorf("reading the pulumi-plugin.json paths: %w", err)
	}

	var packages []*pulumirpc.PackageDependency
	for _, pkg := range installed {
		var manifest *plugin.PulumiPluginJSON
		if path := paths[pkg.Name]; path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			manifest = &plugin.PulumiPluginJSON{}
			if err := json.Unmarshal(data, manifest); err != nil {
				return nil, fmt.Errorf("%s is not valid JSON: %w", path, err)
			}
		}
		if dep := packageDependency(pkg, manifest); dep != nil {
			packages = append(packages, dep)
		}
	}
	return packages, nil
}

// withoutPlugin are Pulumi's own Python packages that name no resource plugin.
var withoutPlugin = map[string]bool{"pulumi-policy": true, "pulumi-esc-sdk": true}

// pep440Release is the release part of a Python package version (1.2.3 of 1.2.3a1 or 1.2.3.post4).
var pep440Release = regexp.MustCompile(`^(\d+)(?:\.(\d+))?(?:\.(\d+))?$`)

func packageDependency(pkg plugin.DependencyInfo, manifest *plugin.PulumiPluginJSON) *pulumirpc.PackageDependency {
	if manifest == nil && (withoutPlugin[pkg.Name] || !strings.HasPrefix(pkg.Name, "pulumi-")) {
		return nil
	}
	name, version, server := strings.TrimPrefix(pkg.Name, "pulumi-"), "", ""
	if manifest != nil {
		if !manifest.Resource {
			return nil
		}
		if manifest.Name != "" {
			name = manifest.Name
		}
		version, server = manifest.Version, manifest.Server
	}
	if version == "" {
		// A plain release only: the plugin version of a pre-release cannot be derived from its package
		// version (upstream skips those too), and the engine then finds the plugin when it is used.
		parts := pep440Release.FindStringSubmatch(pkg.Version)
		if parts == nil {
			return nil
		}
		for i := 2; i <= 3; i++ {
			if parts[i] == "" {
				parts[i] = "0"
			}
		}
		version = parts[1] + "." + parts[2] + "." + parts[3]
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	return &pulumirpc.PackageDependency{Name: name, Version: version, Kind: "resource", Server: server}
}
