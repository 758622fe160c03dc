/**
 * A team's own log pipeline, as they would keep it in Terraform (`datadog_logs_custom_pipeline`),
 * for the captured Java app's logback lines (test/fixtures/captured/java-dd-java-agent-1.68.1-v0.4/
 * app.default.log) under `source:shop`: the invoice lines' id, event and customer as attributes,
 * the logger's level as the status, and `shop.pipeline_version` to tell a reloaded version apart.
 * `writeShopPipeline` turns it into the sidecar's --log-pipelines file with `migrate pipelines`, as
 * a user would.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migratePipelinesCommand } from '../../tools/src/migrate/pipelines/cli';

const shopPipelineHcl = (version: string): string => `
resource "datadog_logs_custom_pipeline" "shop" {
  name       = "Shop invoices"
  is_enabled = true
  filter {
    query = "source:shop"
  }
  processor {
    grok_parser {
      name       = "Invoice lines"
      is_enabled = true
      source     = "message"
      samples    = ["13:50:24.734 [http-nio-auto-1-exec-1] INFO  shop.InvoiceController -- invoice 1 created for acme"]
      grok {
        support_rules = ""
        match_rules   = <<-EOT
          invoice_line %%{date("HH:mm:ss.SSS"):time} \\[%%{notSpace:logger.thread_name}\\] %%{word:level}\\s+%%{notSpace:logger.name} -- (invoice %%{integer:invoice.id} %%{data:invoice.event}( for %%{word:invoice.customer})?|%%{data})
        EOT
      }
    }
  }
  processor {
    status_remapper {
      name       = "The logger's level"
      is_enabled = true
      sources    = ["level"]
    }
  }
  processor {
    string_builder_processor {
      name       = "Pipeline version"
      is_enabled = true
      target     = "shop.pipeline_version"
      template   = "${version}"
    }
  }
}
`;

/** Writes the pipeline's HCL into `dir` and migrates it into `file` (the sidecar's pipeline file); throws with the report when migrate fails. */
export function writeShopPipeline(dir: string, file: string, version: string): void {
  const tf = join(dir, 'shop.tf');
  writeFileSync(tf, shopPipelineHcl(version));
  let err = '';
  const code = migratePipelinesCommand([tf, '--out', file], { out: () => {}, err: (t) => (err += t), stdin: () => '' });
  if (code !== 0) throw new Error(err);
}
