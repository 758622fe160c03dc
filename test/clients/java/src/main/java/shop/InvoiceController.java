package shop;

import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The routes, each logging inside its server span at the levels the fixtures need. */
@RestController
public class InvoiceController {
  private static final Logger log = LoggerFactory.getLogger(InvoiceController.class);
  private final JdbcTemplate db;

  public InvoiceController(JdbcTemplate db) {
    this.db = db;
    db.execute("CREATE TABLE invoices (id BIGINT AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(64) NOT NULL, amount INT NOT NULL)");
  }

  @PostMapping("/invoices")
  public ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> invoice) {
    db.update("INSERT INTO invoices (customer, amount) VALUES (?, ?)", invoice.get("customer"), invoice.get("amount"));
    Long id = db.queryForObject("SELECT MAX(id) FROM invoices", Long.class);
    log.info("invoice {} created for {}", id, invoice.get("customer"));
    return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", id));
  }

  @GetMapping("/invoices/{id}")
  public ResponseEntity<Map<String, Object>> get(@PathVariable long id) {
    log.debug("looking up invoice {}", id);
    List<Map<String, Object>> rows = db.queryForList("SELECT id, customer, amount FROM invoices WHERE id = ?", id);
    if (rows.isEmpty()) {
      log.warn("invoice {} not found", id);
      return ResponseEntity.notFound().build();
    }
    log.info("invoice {} found", id);
    return ResponseEntity.ok(rows.get(0));
  }

  @PostMapping("/invoices/{id}/pay")
  public Map<String, Object> pay(@PathVariable long id) {
    db.update("UPDATE invoices SET amount = amount - 1 WHERE id = ?", id);
    try {
      return chargeCard(id);
    } catch (IllegalStateException e) {
      log.error("payment of invoice {} failed", id, e);
      throw e;
    }
  }

  private Map<String, Object> chargeCard(long id) {
    throw new IllegalStateException("payment provider unavailable for invoice " + id);
  }
}
