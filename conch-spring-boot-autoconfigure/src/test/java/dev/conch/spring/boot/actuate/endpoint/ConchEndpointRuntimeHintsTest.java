package dev.conch.spring.boot.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.ActionDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.AssertionDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.CandidateDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.ConchDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.GroupDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.HolderDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.JobDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.MemberDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.OfficeDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpointWebExtension.ErrorDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/** {@link ConchEndpointRuntimeHints}: what a native image needs to write the endpoint's answers. */
class ConchEndpointRuntimeHintsTest {

  @Test
  void descriptorsAreRegisteredForBindingInANativeImage() {
    RuntimeHints hints = new RuntimeHints();
    new ConchEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());

    for (Class<?> descriptor :
        List.of(
            ConchDescriptor.class,
            OfficeDescriptor.class,
            CandidateDescriptor.class,
            GroupDescriptor.class,
            MemberDescriptor.class,
            HolderDescriptor.class,
            AssertionDescriptor.class,
            ActionDescriptor.class,
            TimingDescriptor.class,
            JobDescriptor.class,
            ErrorDescriptor.class)) {
      assertThat(RuntimeHintsPredicates.reflection().onType(descriptor))
          .as("%s", descriptor)
          .accepts(hints);
      assertThat(OperationResponseBody.class).isAssignableFrom(descriptor);
    }
    assertThat(
            RuntimeHintsPredicates.reflection().onMethodInvocation(HolderDescriptor.class, "rev"))
        .accepts(hints);
  }
}
