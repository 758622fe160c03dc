package shop;

import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A tiny invoice service run under dd-java-agent against test/clients/capture-agent.ts, so the
 * agent's exact bytes can be kept as fixtures (README.md beside pom.xml). Once the server is up it
 * calls each route once with a traced client (HttpURLConnection), then exits: the agent flushes
 * its traces on the way out.
 */
@SpringBootApplication
public class ShopApplication {
  private static final Logger log = LoggerFactory.getLogger(ShopApplication.class);

  /** The calls the app makes to itself, in order: method, path, request body (or null). */
  private static final String[][] CALLS = {
    {"POST", "/invoices", "{\"customer\":\"acme\",\"amount\":120}"},
    {"GET", "/invoices/1", null},
    {"GET", "/invoices/42", null},
    {"POST", "/invoices/1/pay", null},
  };

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(ShopApplication.class);
    app.addListeners((ApplicationReadyEvent ready) -> drive(ready.getApplicationContext()));
    ConfigurableApplicationContext context = app.run(args);
    System.exit(SpringApplication.exit(context));
  }

  private static void drive(ConfigurableApplicationContext context) {
    int port = ((ServletWebServerApplicationContext) context).getWebServer().getPort();
    RestClient client = RestClient.builder().requestFactory(new SimpleClientHttpRequestFactory()).build();
    for (String[] call : CALLS) {
      URI uri = URI.create("http://127.0.0.1:" + port + call[1]);
      RestClient.RequestBodySpec request = client.method(org.springframework.http.HttpMethod.valueOf(call[0])).uri(uri);
      if (call[2] != null) {
        request = request.header("Content-Type", "application/json").body(call[2]);
      }
      int status = request.exchange((req, res) -> res.getStatusCode().value());
      System.out.printf("%s %s -> %d%n", call[0], call[1], status);
    }
    // Outside any span: the injected MDC keys are absent, so the text layout has them empty.
    log.info("made {} calls", CALLS.length);
  }
}
