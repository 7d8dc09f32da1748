// A Go program over a folder of campaign files: every campaign file under campaigns/ becomes a
// Campaign of the provider plugin (pulumi-resource-directmail), and each campaign's outputs are the
// stack output `campaigns`, by its name. The Go SDK is sdk/go of this repository (go.mod's
// replace line); docs/packaging.md says how it is generated.
package main

import (
	"github.com/pulumi-directmail/pulumi-directmail/sdk/go/directmail"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		folder, err := directmail.NewCampaignFolder(ctx, "campaigns", &directmail.CampaignFolderArgs{
			Dir: pulumi.String("campaigns"),
		})
		if err != nil {
			return err
		}
		ctx.Export("campaigns", folder.Outputs)
		// One campaign's order, by its metadata.name: a typed output of the folder's outputs.
		ctx.Export("welcomeOrderId", folder.Outputs.MapIndex(pulumi.String("go-welcome-letters")).OrderId())
		return nil
	})
}
