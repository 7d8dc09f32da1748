// Command pulumi-sdkgen is a language host that only generates SDKs: `pulumi package gen-sdk`
// asks the language's host to generate the package (GeneratePackage), and the upstream Python and
// Go hosts live in Go modules that the module proxy does not serve. scripts/ensure-sdkgen.sh
// installs this binary as `pulumi-language-python` and `pulumi-language-go` in a folder of its own,
// beside a link of the CLI, and the name it runs under chooses the language. It binds the schema
// and calls the code generator of github.com/pulumi/pulumi/pkg/v3 at the CLI's version, as the
// upstream hosts do, so the SDKs are the ones `pulumi package gen-sdk` makes with them.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// generators: the code generator of each language, by the host's name, called as the upstream
// hosts call them.
var generators = map[string]func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
	loader schema.ReferenceLoader) (map[string][]byte, error){
	"pulumi-language-python": func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
		loader schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return pygen.GeneratePackage(tool, pkg, req.GetExtraFiles(), loader)
	},
	"pulumi-language-go": func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
		_ schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return gogen.GeneratePackage(tool, pkg, req.GetLocalDependencies())
	},
}

func main() {
	// The engine passes flags meant for the upstream hosts; accept and ignore them.
	flag.String("tracing", "", "ignored")
	flag.String("root", "", "ignored")
	flag.String("binary", "", "ignored")
	flag.String("buildTarget", "", "ignored")
	flag.String("virtualenv", "", "ignored")
	flag.String("toolchain", "", "ignored")
	flag.Parse()

	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if _, ok := generators[name]; !ok {
		cmdutil.Exit(fmt.Errorf("run as pulumi-language-python or pulumi-language-go, not %s", name))
	}
	h := &host{name: name}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start %s: %w", name, err))
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("%s stopped serving: %w", name, err))
	}
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	name string
}

func (h *host) Handshake(
	context.Context, *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// Run says what this host is for, should a program's project ever reach it.
func (h *host) Run(context.Context, *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	return nil, status.Errorf(codes.Unimplemented,
		"this %s only generates SDKs (scripts/generate-sdks.sh); it does not run programs", h.name)
}

// GeneratePackage binds the schema, refusing it with the binder's diagnostics when it has errors,
// and writes the generated files under the requested directory.
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, fmt.Errorf("reading the package schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	response := &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}
	if diags.HasErrors() {
		return response, nil
	}

	files, err := generators[h.name](h.name, pkg, req, loader)
	if err != nil {
		return nil, err
	}
	for file, data := range files {
		target := filepath.Join(req.GetDirectory(), file)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return nil, err
		}
	}
	return response, nil
}
