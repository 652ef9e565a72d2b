package dev.conch.spring.fence;

import dev.conch.Leadership;
import jakarta.persistence.PrePersist;
import jakarta.persistence.PreUpdate;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.util.ReflectionUtils;

/**
 * A JPA entity listener that fills the {@link FenceToken @FenceToken} fields of an entity with the
 * token of the term the current transaction fenced, on persist and on update: the entity's writes
 * then carry their term to the fence column's trigger with no code of the user's and no extra round
 * trip. A field the code set is kept; outside a fenced transaction nothing is filled.
 */
public class FenceTokenEntityListener {

  private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

  /** Fills the entity's token fields before it is inserted or updated. */
  @PrePersist
  @PreUpdate
  public void fill(Object entity) {
    for (Field field : fields(entity.getClass())) {
      if (ReflectionUtils.getField(field, entity) instanceof Long set && set > 0) {
        continue;
      }
      FenceToken annotation = field.getAnnotation(FenceToken.class);
      Leadership term = TransactionFence.fencedTerm(annotation.value());
      if (term != null) {
        ReflectionUtils.setField(field, entity, term.token());
      }
    }
  }

  private static List<Field> fields(Class<?> type) {
    return FIELDS.computeIfAbsent(
        type,
        t -> {
          List<Field> found = new ArrayList<>();
          ReflectionUtils.doWithFields(
              t,
              field -> {
                ReflectionUtils.makeAccessible(field);
                found.add(field);
              },
              field ->
                  field.isAnnotationPresent(FenceToken.class)
                      && (field.getType() == Long.class || field.getType() == long.class));
          return List.copyOf(found);
        });
  }
}
