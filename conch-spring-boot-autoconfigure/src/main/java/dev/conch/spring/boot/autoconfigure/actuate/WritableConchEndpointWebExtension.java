package dev.conch.spring.boot.autoconfigure.actuate;

import dev.conch.Election;
import dev.conch.NotLeaderException;
import dev.conch.State;
import dev.conch.spring.boot.autoconfigure.Elections;
import java.util.Optional;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link ConchEndpointWebExtension} plus {@code POST /actuator/conch/{office}} with {@code
 * {"action":"resign"}} or {@code {"action":"transfer"}}; in place of the read-only extension only
 * when {@code conch.endpoint.write.enabled=true}, so that without it the operation is not mapped at
 * all.
 *
 * <p>{@code resign} leaves the election: the next candidate leads at once, and this instance does
 * not campaign again until it restarts. {@code transfer} hands the office over and queues again at
 * the back.
 */
@EndpointWebExtension(endpoint = ConchEndpoint.class)
public class WritableConchEndpointWebExtension extends ConchEndpointWebExtension {

  private final Elections elections;

  /** An extension of {@code delegate} that acts on {@code elections}. */
  public WritableConchEndpointWebExtension(ConchEndpoint delegate, Elections elections) {
    super(delegate);
    this.elections = elections;
  }

  /**
   * Resigns from or transfers {@code office}: 200 when done, 404 when this instance does not
   * campaign for it, 409 when it cannot (transfer without leading; the runner's office), 400 for
   * any other action.
   */
  @WriteOperation
  public WebEndpointResponse<Object> act(@Selector String office, String action) {
    Optional<Election> election = this.elections.find(office);
    if (election.isEmpty()) {
      return error(
          office,
          "this instance does not campaign for office '" + office + "'",
          WebEndpointResponse.STATUS_NOT_FOUND);
    }
    try {
      switch (action) {
        case "resign" -> election.get().resign();
        case "transfer" -> election.get().transfer();
        default -> {
          return error(
              office,
              "unknown action '" + action + "'; use resign or transfer",
              WebEndpointResponse.STATUS_BAD_REQUEST);
        }
      }
    } catch (NotLeaderException | UnsupportedOperationException ex) {
      return error(office, ex.getMessage(), STATUS_CONFLICT);
    }
    return new WebEndpointResponse<>(
        new ActionDescriptor(office, action, election.get().state()),
        WebEndpointResponse.STATUS_OK);
  }

  /**
   * What was done to an office.
   *
   * @param office the office
   * @param action {@code resign} or {@code transfer}
   * @param state the state of this instance's candidate afterwards
   */
  public record ActionDescriptor(String office, String action, State state) {}
}
