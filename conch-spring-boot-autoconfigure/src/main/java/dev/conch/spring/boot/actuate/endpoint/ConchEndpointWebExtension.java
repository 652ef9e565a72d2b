package dev.conch.spring.boot.actuate.endpoint;

import dev.conch.EtcdUnavailableException;
import dev.conch.InvalidArgumentException;
import dev.conch.NotLeaderException;
import dev.conch.TransferRefusedException;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.AssertionDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.HolderDescriptor;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link ConchEndpoint}: the status
 * codes of the contract. {@code GET /actuator/conch/{office}} answers 200 with the holder, 404 when
 * vacant, 503 when etcd cannot be read; {@code GET /actuator/conch/{office}/assert} answers 200
 * only where this instance holds the office right now, 409 elsewhere, 503 when etcd cannot be read
 * (fail closed). {@code POST /actuator/conch/{office}} with {@code {"action":"resign"}}, {@code
 * {"action":"transfer"}} or {@code {"action":"transfer","to":"<candidate id>"}} is mapped only
 * where the endpoint's access is unrestricted ({@code
 * management.endpoint.conch.access=unrestricted}); at the default, read-only, a POST is refused by
 * the actuator (405).
 */
@EndpointWebExtension(endpoint = ConchEndpoint.class)
public final class ConchEndpointWebExtension {

  /** The status of an assertion this instance does not hold. */
  public static final int STATUS_CONFLICT = 409;

  private final ConchEndpoint delegate;

  /** An extension of {@code delegate}. */
  public ConchEndpointWebExtension(ConchEndpoint delegate) {
    this.delegate = delegate;
  }

  /** The endpoint this extends. */
  private ConchEndpoint getDelegate() {
    return this.delegate;
  }

  /** Who leads {@code office}: 200 with the holder, 404 when vacant, 503 without etcd. */
  @ReadOperation
  public WebEndpointResponse<Object> leader(@Selector String office) {
    try {
      HolderDescriptor leader = this.delegate.leader(office);
      if (leader == null) {
        return error(
            office, "office '" + office + "' is vacant", WebEndpointResponse.STATUS_NOT_FOUND);
      }
      return new WebEndpointResponse<>(leader, WebEndpointResponse.STATUS_OK);
    } catch (InvalidArgumentException ex) {
      return error(office, messageOf(ex), WebEndpointResponse.STATUS_BAD_REQUEST);
    } catch (EtcdUnavailableException ex) {
      return unavailable(office, ex);
    }
  }

  /**
   * {@code /assert}: whether this instance holds {@code office} right now: 200 when it does (with a
   * revision of at least {@code minRev}), 409 when not, 503 when etcd cannot be read. {@code
   * /history}: its last {@code n} terms (10 by default), 200; 404 when it has no recorded term, 400
   * for {@code n} outside 1 to 1000, 503 when etcd cannot be read. 404 for any other word.
   */
  @ReadOperation
  public WebEndpointResponse<Object> office(
      @Selector String office, @Selector String view, @Nullable Long minRev, @Nullable Integer n) {
    if (ConchEndpoint.HISTORY.equals(view)) {
      return history(office, minRev, n);
    }
    if (!ConchEndpoint.ASSERT.equals(view)) {
      return error(
          office,
          "unknown operation '"
              + view
              + "'; use /"
              + ConchEndpoint.ASSERT
              + " or /"
              + ConchEndpoint.HISTORY,
          WebEndpointResponse.STATUS_NOT_FOUND);
    }
    if (n != null) {
      return error(
          office,
          "'n' goes with /" + ConchEndpoint.HISTORY + " only",
          WebEndpointResponse.STATUS_BAD_REQUEST);
    }
    String check = view;
    try {
      AssertionDescriptor assertion = this.delegate.assertion(office, check, minRev);
      return new WebEndpointResponse<>(
          assertion, assertion.held() ? WebEndpointResponse.STATUS_OK : STATUS_CONFLICT);
    } catch (InvalidArgumentException ex) {
      return new WebEndpointResponse<>(
          new AssertionDescriptor(false, null, null, null, messageOf(ex)),
          WebEndpointResponse.STATUS_BAD_REQUEST);
    } catch (EtcdUnavailableException ex) {
      return new WebEndpointResponse<>(
          new AssertionDescriptor(false, null, null, null, "etcd unavailable: " + messageOf(ex)),
          WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  private WebEndpointResponse<Object> history(
      String office, @Nullable Long minRev, @Nullable Integer n) {
    try {
      return new WebEndpointResponse<>(
          this.delegate.office(office, ConchEndpoint.HISTORY, minRev, n),
          WebEndpointResponse.STATUS_OK);
    } catch (NoSuchElementException ex) {
      return error(office, messageOf(ex), WebEndpointResponse.STATUS_NOT_FOUND);
    } catch (IllegalArgumentException ex) {
      // InvalidArgumentException (a bad office name) is one too.
      return error(office, messageOf(ex), WebEndpointResponse.STATUS_BAD_REQUEST);
    } catch (EtcdUnavailableException ex) {
      return unavailable(office, ex);
    }
  }

  /**
   * Resigns from or transfers {@code office} (to the candidate {@code to}, when given): 200 when
   * done, 404 when this instance does not campaign for it, 409 when it cannot (transfer without
   * leading; a hand-over to {@code to} refused, nothing changed; the runner's office), 400 for any
   * blank {@code to} or {@code to} with {@code resign} (and, from the actuator itself, for an
   * action that is neither {@code resign} nor {@code transfer}).
   */
  @WriteOperation
  public WebEndpointResponse<Object> act(
      @Selector String office, ConchEndpoint.Action action, @Nullable String to) {
    try {
      return new WebEndpointResponse<>(
          this.delegate.act(office, action, to), WebEndpointResponse.STATUS_OK);
    } catch (NoSuchElementException ex) {
      return error(office, messageOf(ex), WebEndpointResponse.STATUS_NOT_FOUND);
    } catch (NotLeaderException | TransferRefusedException | UnsupportedOperationException ex) {
      return error(office, messageOf(ex), STATUS_CONFLICT);
    } catch (IllegalArgumentException ex) {
      return error(office, messageOf(ex), WebEndpointResponse.STATUS_BAD_REQUEST);
    }
  }

  /** What {@code ex} says, or its type when it says nothing. */
  private static String messageOf(Exception ex) {
    String message = ex.getMessage();
    return (message != null) ? message : ex.getClass().getSimpleName();
  }

  /** 503: etcd could not be read in time. */
  private static WebEndpointResponse<Object> unavailable(String office, Exception ex) {
    return error(
        office,
        "etcd unavailable: " + messageOf(ex),
        WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
  }

  /** A response with an {@link ErrorDescriptor}. */
  private static WebEndpointResponse<Object> error(String office, String message, int status) {
    return new WebEndpointResponse<>(new ErrorDescriptor(office, message), status);
  }

  /**
   * Why a request about an office was not answered.
   *
   * @param office the office
   * @param error what went wrong
   */
  public record ErrorDescriptor(String office, String error) implements OperationResponseBody {}
}
