package dev.conch.spring.boot.test;

import dev.conch.test.EtcdExtension;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Points conch at the etcd of a test class's static {@link EtcdExtension} field: {@code
 * conch.etcd.endpoints} is the cluster's endpoints, so the test needs no
 * {@code @DynamicPropertySource}. Fields are found as Boot finds {@code @ServiceConnection}
 * containers: on the class, its enclosing classes ({@code @Nested}), interfaces and superclasses.
 * Instance fields (a cluster per test) are left alone: a context outlives a test.
 */
final class EtcdExtensionContextCustomizerFactory implements ContextCustomizerFactory {

  private static final boolean CONCH_TEST_PRESENT =
      ClassUtils.isPresent(
          "dev.conch.test.EtcdExtension",
          EtcdExtensionContextCustomizerFactory.class.getClassLoader());

  @Override
  public @Nullable ContextCustomizer createContextCustomizer(
      Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    if (!CONCH_TEST_PRESENT) {
      return null;
    }
    List<Field> fields = new ArrayList<>();
    collect(testClass, fields);
    if (fields.isEmpty()) {
      return null;
    }
    if (fields.size() > 1) {
      throw new IllegalStateException(
          testClass.getName()
              + " has "
              + fields.size()
              + " static EtcdExtension fields "
              + fields.stream()
                  .map(f -> f.getDeclaringClass().getSimpleName() + "." + f.getName())
                  .toList()
              + ": conch.etcd.endpoints can point at one; keep one per test class");
    }
    return new EtcdExtensionContextCustomizer(fields.get(0));
  }

  private static void collect(@Nullable Class<?> candidate, List<Field> fields) {
    if (candidate == null || candidate == Object.class) {
      return;
    }
    ReflectionUtils.doWithLocalFields(
        candidate,
        field -> {
          if (Modifier.isStatic(field.getModifiers())
              && EtcdExtension.class.isAssignableFrom(field.getType())) {
            fields.add(field);
          }
        });
    if (TestContextAnnotationUtils.searchEnclosingClass(candidate)) {
      collect(candidate.getEnclosingClass(), fields);
    }
    for (Class<?> implemented : candidate.getInterfaces()) {
      collect(implemented, fields);
    }
    collect(candidate.getSuperclass(), fields);
  }
}
